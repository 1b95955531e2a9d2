import { describe, expect, it } from 'vitest';
import { untilNextUtc } from '../local/daily-schedule.ts';

describe('local daily schedule', () => {
  const at = { hour: 0, minute: 5 };
  it('waits for the next 00:05 UTC, today or tomorrow', () => {
    expect(untilNextUtc(Date.UTC(2026, 10, 22, 0, 0), at)).toBe(5 * 60_000);
    expect(untilNextUtc(Date.UTC(2026, 10, 22, 0, 6), at)).toBe(86_400_000 - 60_000);
    expect(untilNextUtc(Date.UTC(2026, 11, 31, 23, 59), at)).toBe(6 * 60_000); // across a year end
  });
  it('never fires twice in the same minute', () => {
    expect(untilNextUtc(Date.UTC(2026, 10, 22, 0, 5), at)).toBe(86_400_000);
  });
});

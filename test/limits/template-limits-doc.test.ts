import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VERSION_CHANGE_LIMITS, VERSION_NOTICES, VISIBILITY_CHANGE_LIMITS } from '../../lib/core/settings.ts';

/** docs/limits.md states the per-template limits with the numbers the code enforces. */
const doc = readFileSync(new URL('../../docs/limits.md', import.meta.url), 'utf8');
const abuseRow = (what: string) => doc.split('\n').find((line) => line.startsWith(`| ${what}`)) ?? '';
const perHour = (limit: { perWindow: number; windowMs: number }) => {
  expect(limit.windowMs).toBe(3_600_000);
  return `| ${limit.perWindow} per hour |`;
};

describe('docs/limits.md, per template', () => {
  it('version and visibility changes: the numbers of lib/core/settings.ts', () => {
    expect(abuseRow('Version changes per template')).toContain(perHour(VERSION_CHANGE_LIMITS));
    expect(abuseRow('Visibility changes per template')).toContain(perHour(VISIBILITY_CHANGE_LIMITS));
  });

  it('version notices: started per window, and the window', () => {
    expect(abuseRow('Version notices per template')).toContain(
      `| ${VERSION_NOTICES.perWindow} started per ${VERSION_NOTICES.windowSeconds / 60} minutes;`,
    );
  });
});

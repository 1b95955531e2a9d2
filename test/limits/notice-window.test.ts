import { describe, expect, it } from 'vitest';
import { MAX_NOTICE_WINDOW_SECONDS, setting } from '../../lib/core/environment.ts';
import { FUTURE_TOLERANCE_MS, VERSION_NOTICES } from '../../lib/core/settings.ts';
import { flushDelaySeconds, MAX_DELAY_SECONDS } from '../../lib/marketplace/lifecycle/notice-flush-queue.ts';

/**
 * The flush of waiting notices rides on one SQS message delay, which AWS caps at 900 s and fauxqs
 * does not: the window is capped so that the longest delay it needs (a whole window plus the skew
 * tolerance) is never cut short, which would bring the flush before the window ends.
 */
describe('the notice window and its flush delay', () => {
  it('fits the longest window, plus the skew tolerance, in one SQS delay', () => {
    expect(VERSION_NOTICES.windowSeconds).toBeLessThanOrEqual(MAX_NOTICE_WINDOW_SECONDS);
    const longest = MAX_NOTICE_WINDOW_SECONDS * 1000 + FUTURE_TOLERANCE_MS;
    expect(flushDelaySeconds(longest)).toBe(Math.ceil(longest / 1000));
    expect(flushDelaySeconds(longest)).toBeLessThanOrEqual(MAX_DELAY_SECONDS);
  });

  it('rounds up, never asks SQS for more than 900 s or less than 0', () => {
    expect(flushDelaySeconds(1)).toBe(1);
    expect(flushDelaySeconds(-5_000)).toBe(0);
    expect(flushDelaySeconds(10_000_000)).toBe(MAX_DELAY_SECONDS);
  });

  it('takes NOTICE_WINDOW_SECONDS from 1 to the cap, refuses anything else', () => {
    expect(setting('NOTICE_WINDOW_SECONDS', {})).toBe(VERSION_NOTICES.windowSeconds);
    expect(setting('NOTICE_WINDOW_SECONDS', { NOTICE_WINDOW_SECONDS: '3' })).toBe(3);
    for (const raw of ['0', String(MAX_NOTICE_WINDOW_SECONDS + 1), '1.5', 'soon']) {
      expect(() => setting('NOTICE_WINDOW_SECONDS', { NOTICE_WINDOW_SECONDS: raw })).toThrow(/NOTICE_WINDOW_SECONDS/);
    }
  });
});

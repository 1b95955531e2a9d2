import { describe, expect, it } from 'vitest';
import { isRepeatable, isRetryableStatus, retryDelayMs } from '../../client/http/retry-policy.ts';

describe('client retry policy', () => {
  it('repeats only idempotent methods, or a POST sent with an Idempotency-Key', () => {
    expect(['GET', 'PUT', 'DELETE'].map((m) => isRepeatable(m))).toEqual([true, true, true]);
    expect(['POST', 'PATCH'].map((m) => isRepeatable(m))).toEqual([false, false]);
    expect(isRepeatable('POST', true)).toBe(true);
  });

  it('retries 429 and 5xx, never another 4xx', () => {
    expect([429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 409, 413, 415, 422].some(isRetryableStatus)).toBe(false);
  });

  it('backs off exponentially with jitter between half and all of 0.5 s × 2^(n-1), capped at 8 s', () => {
    for (const [attempt, ceiling] of [
      [1, 500],
      [2, 1000],
      [3, 2000],
      [5, 8000],
      [9, 8000],
    ] as const) {
      expect(retryDelayMs(attempt, null, 0, () => 0)).toBe(ceiling / 2);
      expect(retryDelayMs(attempt, null, 0, () => 1)).toBe(ceiling);
    }
  });

  it('follows Retry-After in seconds or as an HTTP date, and refuses to wait more than a minute', () => {
    const now = Date.parse('2026-11-22T10:00:00.000Z');
    expect(retryDelayMs(1, '3', now)).toBe(3000);
    expect(retryDelayMs(1, 'Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(retryDelayMs(1, 'Sun, 22 Nov 2026 09:59:00 GMT', now)).toBe(0);
    expect(retryDelayMs(1, '61', now)).toBeUndefined();
    expect(retryDelayMs(1, 'soon', now, () => 0)).toBe(250);
  });
});

/**
 * The local runtime's stand-in for API Gateway's usage plan: per usage key, a token bucket (refill
 * `ratePerSecond`, size `burst`) and a count per UTC day against `dailyQuota`. A refused request
 * uses no token and no quota. In memory, like API Gateway's own counters are to a function: the
 * local runtime is one process.
 */
import { API_KEY_LIMITS } from '../../lib/core/settings.ts';

export interface KeyLimits {
  ratePerSecond: number;
  burst: number;
  dailyQuota: number;
}

/**
 * For tests and benchmarks that measure something else (a feed poller racing writers, delivery
 * latency) and must not be slowed by one key's limits. Never used by `npm start`.
 */
export const UNLIMITED_KEY_LIMITS: KeyLimits = { ratePerSecond: 1e9, burst: 1e9, dailyQuota: Number.MAX_SAFE_INTEGER };

export type ThrottleVerdict = { ok: true } | { ok: false; reason: 'rate' | 'quota'; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  refilledAt: number;
  day: number;
  used: number;
}

const DAY_MS = 86_400_000;

export function createKeyThrottle(limits: KeyLimits = API_KEY_LIMITS, now: () => number = Date.now) {
  const buckets = new Map<string, Bucket>();
  return {
    take(usageKey: string): ThrottleVerdict {
      const t = now();
      const day = Math.floor(t / DAY_MS);
      const bucket = buckets.get(usageKey) ?? { tokens: limits.burst, refilledAt: t, day, used: 0 };
      buckets.set(usageKey, bucket);
      bucket.tokens = Math.min(limits.burst, bucket.tokens + ((t - bucket.refilledAt) / 1000) * limits.ratePerSecond);
      bucket.refilledAt = t;
      if (bucket.day !== day) {
        bucket.day = day;
        bucket.used = 0;
      }
      if (bucket.used >= limits.dailyQuota)
        return { ok: false, reason: 'quota', retryAfterSeconds: Math.ceil(((day + 1) * DAY_MS - t) / 1000) };
      if (bucket.tokens < 1)
        return { ok: false, reason: 'rate', retryAfterSeconds: Math.ceil((1 - bucket.tokens) / limits.ratePerSecond) };
      bucket.tokens -= 1;
      bucket.used += 1;
      return { ok: true };
    },
  };
}

export type KeyThrottle = ReturnType<typeof createKeyThrottle>;

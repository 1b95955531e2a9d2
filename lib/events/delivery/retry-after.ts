/**
 * Backpressure from the endpoint's answer, as the Standard Webhooks spec asks
 * (docs/webhooks.md, "Backpressure"): 410 Gone means "stop for good"; 429, 502, 503 and 504 mean
 * "slow down", and with a `Retry-After` (delay-seconds or an HTTP date, RFC 9110 §10.2.3) the next
 * attempt waits at least that long, at most MAX_RETRY_AFTER_SECONDS: an endpoint cannot park a
 * delivery for days with one header.
 */
import type { OutboundResult } from '../../net/outbound.ts';

export const MAX_RETRY_AFTER_SECONDS = 3600;
export const SLOW_DOWN_STATUSES: readonly number[] = [429, 502, 503, 504];

export type Backpressure = { kind: 'gone' } | { kind: 'slow_down'; seconds: number } | { kind: 'none' };

export function backpressureOf(result: OutboundResult, nowMs: number): Backpressure {
  if (result.kind !== 'response') return { kind: 'none' };
  if (result.status === 410) return { kind: 'gone' };
  if (!SLOW_DOWN_STATUSES.includes(result.status)) return { kind: 'none' };
  const seconds = retryAfterSeconds(result.headers['retry-after'], nowMs);
  return seconds === undefined ? { kind: 'none' } : { kind: 'slow_down', seconds };
}

/** Whole seconds from now, capped; undefined when absent, malformed or already past. */
export function retryAfterSeconds(value: string | undefined, nowMs: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  let seconds: number;
  if (/^\d+$/.test(text)) seconds = Number(text);
  else {
    // An HTTP date (IMF-fixdate, or the obsolete forms Date.parse reads); never a bare number of ms.
    if (!/[A-Za-z]/.test(text)) return undefined;
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    seconds = Math.ceil((at - nowMs) / 1000);
  }
  if (!Number.isFinite(seconds) || seconds <= 0) return undefined;
  return Math.min(seconds, MAX_RETRY_AFTER_SECONDS);
}

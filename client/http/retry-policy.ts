/**
 * When a failed request is sent again, and after how long.
 *
 * Only requests that are safe to repeat are retried: GET, PUT and DELETE, and what the transport
 * sends with an `Idempotency-Key` (every method but GET: the service replays the first answer to
 * a repeated key instead of acting twice). A PATCH without a key may have taken effect before the
 * failure showed, so by itself it is not repeatable.
 */
import { ApiError } from '../errors.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A Retry-After longer than this is not waited out; the error goes to the caller instead. */
const MAX_RETRY_AFTER_MS = 60_000;

export function isRepeatable(method: string, declaredIdempotent = false): boolean {
  return declaredIdempotent || IDEMPOTENT_METHODS.has(method.toUpperCase());
}

/** Rate limiting and server-side failures are worth another try; client errors are not. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** An error answer worth another try: the statuses above, or a twin of this POST still running. */
export function isRetryable(error: unknown): boolean {
  return error instanceof ApiError && (isRetryableStatus(error.status) || error.code === 'idempotency_key_in_use');
}

/**
 * Milliseconds to wait before retry number `attempt` (1-based): the server's Retry-After when it
 * gives one, else exponential backoff with full jitter so many clients don't retry in lockstep.
 * undefined = the server asks for a longer wait than is worth blocking on.
 */
export function retryDelayMs(
  attempt: number,
  retryAfter: string | null,
  now = Date.now(),
  random = Math.random,
): number | undefined {
  const asked = parseRetryAfter(retryAfter, now);
  if (asked !== undefined) return asked <= MAX_RETRY_AFTER_MS ? asked : undefined;
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Retry-After is either delta-seconds or an HTTP date. */
function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The AWS SDK's standard retry mode for the calls made without an SDK client (signed-request.ts),
 * from the SDK's own classification and numbers (`@smithy/core/retry`, already in every bundle
 * with the DynamoDB client): an SDK update moves both alike. What is ours is only the loop around
 * them, which honours a deadline the SDK's strategy cannot see (it sleeps inside itself).
 *
 * - Retried: throttling (429 or a throttling error code) and transient failures (500/502/503/504,
 *   a timeout, a reset or refused connection, a clock skew just corrected); nothing else.
 * - At most DEFAULT_MAX_ATTEMPTS attempts; each retry waits a full-jitter backoff from the SDK's base
 *   (throttling waits longer), stretched toward a `Retry-After` as the SDK stretches it.
 * - A retry budget per process, as each SDK client keeps one: a retry spends tokens (more for a
 *   transient failure than for throttling), a success gives some back, and an empty budget stops
 *   retrying, so an outage is not multiplied by retries from every caller.
 */
import {
  DEFAULT_MAX_ATTEMPTS,
  INITIAL_RETRY_TOKENS,
  isThrottlingError,
  isTransientError,
  MAXIMUM_RETRY_DELAY,
  NO_RETRY_INCREMENT,
  Retry,
} from '@smithy/core/retry';

export const MAX_ATTEMPTS = DEFAULT_MAX_ATTEMPTS;

/** What a failed attempt looked like, in the shape the SDK's classification reads. */
export interface FailedAttempt {
  /** The API's error code (`ThrottlingException`), or the thrown error's name. */
  name: string;
  message: string;
  /** A Node network error's code (`ECONNRESET`). */
  code?: string | undefined;
  /** What the error says caused it (classified too, as the SDK does). */
  cause?: unknown;
  $metadata: { httpStatusCode?: number | undefined; clockSkewCorrected?: boolean | undefined };
}

export type RetryKind = 'THROTTLING' | 'TRANSIENT';

/** The SDK's verdict on a failed attempt: retried as throttling, as transient, or not at all. */
export function retryKindOf(failure: FailedAttempt): RetryKind | undefined {
  if (isThrottlingError(failure as never)) return 'THROTTLING';
  if (isTransientError(failure as never)) return 'TRANSIENT';
  return undefined;
}

/**
 * The wait before retry number `retryCount` (0 for the first retry): the SDK's full jitter,
 * stretched toward a `Retry-After` hint by at most 5 s more, as the SDK stretches it.
 */
export function retryDelayMs(
  kind: RetryKind,
  retryCount: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const base = kind === 'THROTTLING' ? Retry.throttlingDelay() : Retry.delay();
  const delay = Math.floor(random() * Math.min(base * 2 ** retryCount, MAXIMUM_RETRY_DELAY));
  return retryAfterMs === undefined ? delay : Math.max(delay, Math.min(retryAfterMs, delay + 5_000));
}

/** A `Retry-After` header (seconds or an HTTP date) as milliseconds from now. */
export function retryAfterMsOf(header: string | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The SDK's retry budget (its StandardRetryStrategy's capacity), one per process. */
export class RetryBudget {
  private capacity = INITIAL_RETRY_TOKENS;

  /** Takes a retry's cost, or answers undefined when the budget cannot pay it (no retry). */
  take(kind: RetryKind): number | undefined {
    const cost = kind === Retry.modifiedCostType() ? Retry.throttlingCost() : Retry.cost();
    if (this.capacity < cost) return undefined;
    this.capacity -= cost;
    return cost;
  }

  /** A call answered: the last retry's cost comes back, or one token when it needed none. */
  succeeded(lastRetryCost: number | undefined): void {
    this.capacity = Math.min(INITIAL_RETRY_TOKENS, this.capacity + (lastRetryCost ?? NO_RETRY_INCREMENT));
  }

  get tokens(): number {
    return this.capacity;
  }
}

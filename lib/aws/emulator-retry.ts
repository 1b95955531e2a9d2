/**
 * The SDK's retry rules for clients of the local emulators, without the SDK's retry quota.
 *
 * The standard strategy shares one token bucket among every request of a client: 500 tokens, 14
 * per retry of a transient error in this SDK, so about 35 retries in a burst before it stops
 * retrying anything. In Lambda that bucket is per instance and an instance serves one request at a
 * time, so 50 concurrent installs have 50 buckets. The local runtime and the tests serve all 50 from
 * one process and one client, and DynamoDB Local answers transactions that wait on one hot item's
 * lock with a 500 ("This request will succeed in actual DynamoDB API"; DynamoDB itself answers
 * TransactionConflict, which lib/store/transact.ts retries). One shared bucket therefore turned a
 * burst that AWS would have served into 500s for the last requests. Here every request keeps its
 * own attempts and nothing is shared, which is what AWS gives the same burst.
 *
 * Which errors are retried is the SDK's classification: throttling and transient errors (500–504,
 * timeouts, resets); anything else is thrown at once. The wait is simpler than the SDK's (no longer
 * base for throttling, no Retry-After, which the emulators never send): full jitter, doubling from
 * 50 ms, capped at 5 s, so twelve attempts wait about half a minute at most.
 */
import type { RetryErrorInfo, RetryStrategyV2, StandardRetryToken } from '@smithy/types';

const BASE_DELAY_MS = 50;
const MAX_DELAY_MS = 5_000;

const token = (retryCount: number, delayMs: number): StandardRetryToken => ({
  getRetryCount: () => retryCount,
  getRetryDelay: () => delayMs,
  getRetryCost: () => undefined,
});

export function emulatorRetryStrategy(maxAttempts: number): RetryStrategyV2 {
  return {
    acquireInitialRetryToken: async () => token(0, 0),
    refreshRetryTokenForRetry: async (previous, info: RetryErrorInfo) => {
      const retries = previous.getRetryCount() + 1;
      const retryable = info.errorType === 'THROTTLING' || info.errorType === 'TRANSIENT';
      if (!retryable || retries >= maxAttempts) throw new Error('No retry token available');
      return token(retries, Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retries));
    },
    recordSuccess: () => {},
  };
}

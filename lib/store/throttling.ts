/**
 * DynamoDB refuses work it cannot take right now with these errors, after the SDK has already
 * retried with backoff. Nothing was written, the request itself was fine: 429 with Retry-After
 * rather than a 500. The SDK's error stays as the AppError's `cause`, for the log.
 */
import { type AppError, rateLimited } from '../core/errors.ts';

const THROTTLING_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
]);

export function throttlingAsRateLimited(err: unknown): AppError | undefined {
  if (!(err instanceof Error) || !THROTTLING_ERRORS.has(err.name)) return undefined;
  return rateLimited(
    'The service is receiving too many requests for this item right now; try again in a moment.',
    1,
    err,
  );
}

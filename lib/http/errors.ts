/**
 * The service's error vocabulary (docs/api.md "Errors"). Domain code throws these; the HTTP stack turns
 * them into `{"error": {code, message, details?}}` with the status below. Anything else becomes a
 * 500 `internal_error` whose message never carries the original text.
 */
export type ErrorCode =
  | 'validation_error'
  | 'invalid_json'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'slug_taken'
  | 'review_exists'
  | 'version_exists'
  | 'invalid_transition'
  | 'webhook_not_configured'
  | 'limit_exceeded'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'verification_timeout'
  | 'challenge_mismatch'
  | 'endpoint_error'
  | 'url_validation_error'
  | 'idempotency_key_reused'
  | 'idempotency_key_in_use'
  | 'rate_limited'
  | 'internal_error';

export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  validation_error: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  slug_taken: 409,
  review_exists: 409,
  version_exists: 409,
  invalid_transition: 409,
  webhook_not_configured: 409,
  limit_exceeded: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  verification_timeout: 422,
  challenge_mismatch: 422,
  endpoint_error: 422,
  url_validation_error: 422,
  idempotency_key_reused: 422,
  idempotency_key_in_use: 409,
  rate_limited: 429,
  internal_error: 500,
};

export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * Every 429 tells the client when to come back: a `rate_limited` error without its own wait gets
 * one second, so no code path can produce a 429 without `Retry-After`.
 */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

export class AppError extends Error {
  readonly status: number;
  /** Whole seconds for the `Retry-After` header; set on every `rate_limited` error. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    options: { retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
    const wait = options.retryAfterSeconds ?? (code === 'rate_limited' ? DEFAULT_RETRY_AFTER_SECONDS : undefined);
    this.retryAfterSeconds = wait === undefined ? undefined : Math.max(1, Math.ceil(wait));
  }
}

export const notFound = (what = 'Resource') => new AppError('not_found', `${what} not found.`);
export const forbidden = (message: string) => new AppError('forbidden', message);
/** 429 `rate_limited`: `retryAfterSeconds` is when the limit that refused the request lets it through again. */
export const rateLimited = (message: string, retryAfterSeconds: number) =>
  new AppError('rate_limited', message, undefined, { retryAfterSeconds });
export const validationError = (details: ErrorDetail[], message = 'The request is not valid.') =>
  new AppError('validation_error', message, details);

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
}

/**
 * Most `details` one answer lists. A 256 KiB body can hold 125,000 wrong array items or 20,000
 * unknown fields: listed in full that was a 21 MB answer (over Lambda's 6 MB response limit, so a
 * 502 from API Gateway), built for a client that reads the first few.
 */
export const MAX_DETAILS = 20;

function shownDetails(details: ErrorDetail[]): ErrorDetail[] {
  if (details.length <= MAX_DETAILS) return details;
  const rest = details.length - (MAX_DETAILS - 1);
  return [...details.slice(0, MAX_DETAILS - 1), { path: '', message: `…and ${rest} more problems.` }];
}

export function errorBody(err: AppError): ErrorBody {
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(err.details ? { details: shownDetails(err.details) } : {}),
    },
  };
}

/** The headers an error answer carries besides the body: `Retry-After` on a 429. */
export function errorHeaders(err: AppError): Record<string, string> {
  return err.retryAfterSeconds === undefined ? {} : { 'retry-after': String(err.retryAfterSeconds) };
}

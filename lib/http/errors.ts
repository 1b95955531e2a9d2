/**
 * The service's error vocabulary (API.md "Errors"). Domain code throws these; the HTTP stack turns
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
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'verification_timeout'
  | 'challenge_mismatch'
  | 'endpoint_error'
  | 'url_validation_error'
  | 'rate_limited'
  | 'internal_error';

const STATUS: Record<ErrorCode, number> = {
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
  payload_too_large: 413,
  unsupported_media_type: 415,
  verification_timeout: 422,
  challenge_mismatch: 422,
  endpoint_error: 422,
  url_validation_error: 422,
  rate_limited: 429,
  internal_error: 500,
};

export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = 'AppError';
    this.status = STATUS[code];
  }
}

export const notFound = (what = 'Resource') => new AppError('not_found', `${what} not found.`);
export const forbidden = (message: string) => new AppError('forbidden', message);
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

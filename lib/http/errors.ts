/**
 * The HTTP meaning of the error vocabulary (lib/core/errors.ts; docs/api.md "Errors"): the status
 * of each code, the `{"error": {code, message, details?}}` body and the `Retry-After` header of a
 * 429. The stack turns anything that is not an AppError into a 500 `internal_error` whose message
 * never carries the original text.
 */
import type { AppError, ErrorCode, ErrorDetail } from '../core/errors.ts';

export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  validation_error: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  slug_taken: 409,
  review_exists: 409,
  version_exists: 409,
  template_yanked: 409,
  report_exists: 409,
  invalid_transition: 409,
  webhook_not_configured: 409,
  limit_exceeded: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  verification_timeout: 422,
  challenge_mismatch: 422,
  verification_code_mismatch: 422,
  verification_code_expired: 422,
  endpoint_error: 422,
  url_validation_error: 422,
  idempotency_key_reused: 422,
  idempotency_key_in_use: 409,
  rate_limited: 429,
  internal_error: 500,
};

/**
 * API Gateway's throttled answer (a static gateway response, infra/gateway-responses.ts), which the
 * local gateway gives too: one text for a key over its usage plan's rate and for a keyless route
 * over its method throttle, as API Gateway cannot tell the two apart in it.
 */
export const THROTTLED_MESSAGE =
  "Too many requests: over this API key's rate, or, on a route that takes no key, over the route's rate for all callers together. Retry after the Retry-After seconds.";

/** The HTTP status an error answers with. */
export const statusOf = (err: AppError): number => ERROR_STATUS[err.code];

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
}

export function errorBody(err: AppError): ErrorBody {
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(err.details ? { details: err.details } : {}),
    },
  };
}

/** The headers an error answer carries besides the body: `Retry-After` on a 429 (every rate_limited error has a wait). */
export function errorHeaders(err: AppError): Record<string, string> {
  return err.retryAfterSeconds === undefined ? {} : { 'retry-after': String(err.retryAfterSeconds) };
}

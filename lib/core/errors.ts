/**
 * The service's error vocabulary: codes, not statuses. Domain code throws an AppError with one of
 * these codes; each edge decides what a code means for it (lib/http/errors.ts maps codes to HTTP
 * statuses and the `{"error": {code, message, details?}}` body; a worker retries or records a
 * failure). Anything that is not an AppError is an internal error whose text is never shown.
 */
export const ERROR_CODES = [
  'validation_error',
  'invalid_json',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'slug_taken',
  'review_exists',
  'version_exists',
  'template_yanked',
  'report_exists',
  'invalid_transition',
  'webhook_not_configured',
  'limit_exceeded',
  'payload_too_large',
  'unsupported_media_type',
  'verification_timeout',
  'challenge_mismatch',
  'verification_code_mismatch',
  'verification_code_expired',
  'endpoint_error',
  'url_validation_error',
  'idempotency_key_reused',
  'idempotency_key_in_use',
  'rate_limited',
  'internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * Every `rate_limited` error tells the client when to come back: one without its own wait gets
 * one second, so no code path can refuse for load without a wait.
 */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

export class AppError extends Error {
  readonly code: ErrorCode;
  /** Whole seconds until the refused work may be tried again; set on every `rate_limited` error. */
  readonly retryAfterSeconds: number | undefined;
  /** At most MAX_DETAILS of them, however many were given. */
  readonly details: ErrorDetail[] | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    details?: Iterable<ErrorDetail>,
    options: { retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = details === undefined ? undefined : cappedDetails(details);
    const wait = options.retryAfterSeconds ?? (code === 'rate_limited' ? DEFAULT_RETRY_AFTER_SECONDS : undefined);
    this.retryAfterSeconds = wait === undefined ? undefined : Math.max(1, Math.ceil(wait));
  }
}

export const notFound = (what = 'Resource') => new AppError('not_found', `${what} not found.`);
export const forbidden = (message: string) => new AppError('forbidden', message);
/**
 * `rate_limited`: `retryAfterSeconds` is when the limit that refused the work lets it through again;
 * `cause`, the error that refused it (a store's throttling), kept for the log and never shown.
 */
export const rateLimited = (message: string, retryAfterSeconds: number, cause?: unknown) =>
  new AppError('rate_limited', message, undefined, { retryAfterSeconds, cause });

/**
 * A state the code's own reasoning says cannot happen: a transaction cancelled for a reason none
 * of its conditions gives, a record gone right after a write found it, a loop that should have
 * settled. Never a client's mistake: an edge answers it as any internal error (500, no text shown)
 * and logs it with its name. The area's error-line alarm (infra/log-metrics.ts) counts it with
 * every other ERROR line; the name on the line (`error: "InvariantError: …"`) is what tells a broken
 * assumption from an outage of a dependency when the alarm is read.
 */
export class InvariantError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvariantError';
  }
}
export const validationError = (details: Iterable<ErrorDetail>, message = 'The request is not valid.') =>
  new AppError('validation_error', message, details);

/**
 * Most `details` one answer lists. A 256 KiB body can hold 125,000 wrong array items or 20,000
 * unknown fields: listed in full that was a 21 MB answer (over Lambda's 6 MB response limit, so a
 * 502 from API Gateway), built for a client that reads the first few.
 */
export const MAX_DETAILS = 20;

/**
 * All of `details` when they are at most MAX_DETAILS, else the first MAX_DETAILS − 1 and one
 * saying how many more. Reads the iterable once and keeps no more than MAX_DETAILS, so a lazy
 * producer (lib/http/validation.ts) builds that many however many problems an input has.
 */
export function cappedDetails(details: Iterable<ErrorDetail>): ErrorDetail[] {
  const kept: ErrorDetail[] = [];
  let more = 0;
  for (const detail of details) {
    if (kept.length < MAX_DETAILS) kept.push(detail);
    else more++;
  }
  if (more === 0) return kept;
  return [...kept.slice(0, MAX_DETAILS - 1), { path: '', message: `…and ${more + 1} more problems.` }];
}

/**
 * The longest `path` a detail shows. Paths name the input's own keys, which may be long: a detail
 * repeats at most this much of them.
 */
export const MAX_DETAIL_PATH_CHARS = 200;

/** A detail's dotted path, cut at MAX_DETAIL_PATH_CHARS (and built no further than that). */
export function detailPath(parts: readonly PropertyKey[]): string {
  let text = '';
  for (const part of parts) {
    text += (text ? '.' : '') + String(part);
    if (text.length > MAX_DETAIL_PATH_CHARS) return `${text.slice(0, MAX_DETAIL_PATH_CHARS)}…`;
  }
  return text;
}

import type { ErrorDetail } from './types/common.ts';

/** Base of every error the client throws, so one `instanceof` catches them all. */
export class MarketplaceClientError extends Error {
  override name = 'MarketplaceClientError';
}

/** The service answered with an error status (docs/api.md "Errors"). */
export class ApiError extends MarketplaceClientError {
  override name = 'ApiError';
  /** HTTP status code. */
  readonly status: number;
  /** The service's snake_case code (`not_found`, `validation_error`, …); `http_<status>` when the body was not the service's error format (e.g. a proxy's 502). */
  readonly code: string;
  /** Per-field problems; present on `validation_error`. */
  readonly details: ErrorDetail[] | undefined;
  /** The response's `x-request-id`; quote it when reporting a problem. */
  readonly requestId: string | undefined;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    details?: ErrorDetail[] | undefined;
    requestId?: string | undefined;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
  }
}

/** No HTTP answer: the connection failed, or no answer came within `timeoutMs`. */
export class ConnectionError extends MarketplaceClientError {
  override name = 'ConnectionError';
  readonly timedOut: boolean;

  constructor(message: string, timedOut: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.timedOut = timedOut;
  }
}

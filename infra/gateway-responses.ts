/**
 * Answers API Gateway gives on its own (no key, unknown route, throttling, too large) in the
 * service's error format. Gateway response headers can map only request parameters and static
 * values, not context variables, so these carry API Gateway's own `x-amzn-RequestId` rather than
 * `x-request-id` (the handlers' answers carry both, with the same id).
 *
 * CORS: with `*` they allow any origin like the handlers; with a list of origins they echo the
 * request's `Origin` (a gateway response cannot test membership), which is harmless because these
 * answers carry no account data, only the error.
 */
import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { CORS_EXPOSED_HEADERS } from '../lib/http/cors.ts';
import { THROTTLED_MESSAGE } from '../lib/http/errors.ts';

const body = (code: string, message: string) => ({
  'application/json': JSON.stringify({ error: { code, message } }),
});

/**
 * Retry-After on the gateway's own 429s. Header values here are static: one second for the per-key
 * rate (a token is back within 1 / rate s), an hour for the daily quota (it resets at 00:00 UTC,
 * which a static value cannot name; a client retrying earlier gets another cheap 429).
 */
export const THROTTLED_RETRY_AFTER_SECONDS = 1;
export const QUOTA_RETRY_AFTER_SECONDS = 3600;

export function gatewayResponses(api: RestApi, corsOrigins: readonly string[]): void {
  const headers = {
    'Access-Control-Allow-Origin': corsOrigins.includes('*') ? "'*'" : 'method.request.header.Origin',
    'Access-Control-Expose-Headers': `'${CORS_EXPOSED_HEADERS.join(', ')}'`,
  };
  const add = (
    id: string,
    type: ResponseType,
    statusCode: string | undefined,
    code: string,
    message: string,
    extraHeaders: Record<string, string> = {},
  ) =>
    api.addGatewayResponse(id, {
      type,
      ...(statusCode ? { statusCode } : {}),
      responseHeaders: { ...headers, ...extraHeaders },
      templates: body(code, message),
    });

  add(
    'Unauthorized',
    ResponseType.UNAUTHORIZED,
    '401',
    'unauthorized',
    'A valid API key is required (Authorization: Bearer <API_KEY>).',
  );
  add(
    'AccessDenied',
    ResponseType.ACCESS_DENIED,
    '401',
    'unauthorized',
    'A valid API key is required (Authorization: Bearer <API_KEY>).',
  );
  add('MissingToken', ResponseType.MISSING_AUTHENTICATION_TOKEN, '404', 'not_found', 'No such route.');
  add('TooLarge', ResponseType.REQUEST_TOO_LARGE, '413', 'payload_too_large', 'The body is too large.');
  // With the API key coming from the authorizer, a key the usage plan does not know is this caller's key being unusable.
  add(
    'InvalidApiKey',
    ResponseType.INVALID_API_KEY,
    '401',
    'unauthorized',
    'This API key is not enabled for this API.',
  );
  add('Throttled', ResponseType.THROTTLED, '429', 'rate_limited', THROTTLED_MESSAGE, {
    'Retry-After': `'${THROTTLED_RETRY_AFTER_SECONDS}'`,
  });
  add(
    'QuotaExceeded',
    ResponseType.QUOTA_EXCEEDED,
    '429',
    'rate_limited',
    "This API key has used today's request quota; it resets at 00:00 UTC.",
    {
      'Retry-After': `'${QUOTA_RETRY_AFTER_SECONDS}'`,
    },
  );
  // Rare gateway-level rejections that never reach a handler keep their own status.
  add('Default4xx', ResponseType.DEFAULT_4XX, undefined, 'bad_request', 'The request could not be processed.');
  add(
    'Default5xx',
    ResponseType.DEFAULT_5XX,
    '500',
    'internal_error',
    'Something went wrong on our side. Try again later.',
  );
}

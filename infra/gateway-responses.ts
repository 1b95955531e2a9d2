import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { CORS_EXPOSED_HEADERS } from '../lib/http/cors.ts';

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
const body = (code: string, message: string) => ({
  'application/json': JSON.stringify({ error: { code, message } }),
});

export function gatewayResponses(api: RestApi, corsOrigins: readonly string[]): void {
  const headers = {
    'Access-Control-Allow-Origin': corsOrigins.includes('*') ? "'*'" : 'method.request.header.Origin',
    'Access-Control-Expose-Headers': `'${CORS_EXPOSED_HEADERS.join(', ')}'`,
  };
  const add = (id: string, type: ResponseType, statusCode: string | undefined, code: string, message: string) =>
    api.addGatewayResponse(id, { type, ...(statusCode ? { statusCode } : {}), responseHeaders: headers, templates: body(code, message) });

  add('Unauthorized', ResponseType.UNAUTHORIZED, '401', 'unauthorized', 'A valid API key is required (Authorization: Bearer <API_KEY>).');
  add('AccessDenied', ResponseType.ACCESS_DENIED, '401', 'unauthorized', 'A valid API key is required (Authorization: Bearer <API_KEY>).');
  add('MissingToken', ResponseType.MISSING_AUTHENTICATION_TOKEN, '404', 'not_found', 'No such route.');
  add('TooLarge', ResponseType.REQUEST_TOO_LARGE, '413', 'payload_too_large', 'The body is too large.');
  add('Throttled', ResponseType.THROTTLED, '429', 'rate_limited', 'Too many requests. Retry later.');
  add('QuotaExceeded', ResponseType.QUOTA_EXCEEDED, '429', 'rate_limited', 'Too many requests. Retry later.');
  // Rare gateway-level rejections that never reach a handler keep their own status.
  add('Default4xx', ResponseType.DEFAULT_4XX, undefined, 'bad_request', 'The request could not be processed.');
  add('Default5xx', ResponseType.DEFAULT_5XX, '500', 'internal_error', 'Something went wrong on our side. Try again later.');
}

/**
 * CORS for browsers calling the API. The API authenticates with a bearer key, never a cookie, so
 * no answer allows credentials and `*` (the default) exposes nothing a page could not already
 * read with its own key. A stage that wants to name its origins sets `CORS_ALLOWED_ORIGINS`
 * (comma-separated, e.g. `https://app.example.com,https://admin.example.com`); the answer then
 * echoes the request's `Origin` when it is listed and carries `Vary: Origin`.
 *
 * The same module serves the handlers (lib/http/middleware.ts, sse-route.ts), the local gateway's own
 * answers and its preflights; in AWS the preflights and gateway responses get the same lists from
 * infra/api-stack.ts.
 */
import { setting } from '../core/environment.ts';
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'Last-Event-ID',
  'traceparent',
  'tracestate',
] as const;
/** Response headers a browser page may read beyond the CORS-safelisted ones. */
export const CORS_EXPOSED_HEADERS = [
  'x-request-id',
  'location',
  'retry-after',
  'idempotency-replayed',
  'traceresponse',
  'x-service-trace',
] as const;
export const CORS_MAX_AGE_SECONDS = 600;

/** The configured origins: `['*']` when unset or `*`. */
export const allowedOrigins = (env?: Record<string, string | undefined>): string[] =>
  setting('CORS_ALLOWED_ORIGINS', env);

/** Headers every answer carries; `origin` is the request's `Origin` header (any case already folded). */
export function corsHeaders(
  origin: string | undefined,
  origins: readonly string[] = allowedOrigins(),
): Record<string, string> {
  const exposed = { 'access-control-expose-headers': CORS_EXPOSED_HEADERS.join(', ') };
  if (origins.includes('*')) return { 'access-control-allow-origin': '*', ...exposed };
  const allowed = origin !== undefined && origins.includes(origin);
  return { ...(allowed ? { 'access-control-allow-origin': origin, ...exposed } : {}), vary: 'Origin' };
}

/** A preflight's answer headers for a path that takes `methods`. */
export function preflightHeaders(
  origin: string | undefined,
  methods: readonly string[],
  origins: readonly string[] = allowedOrigins(),
): Record<string, string> {
  return {
    ...corsHeaders(origin, origins),
    'access-control-allow-methods': [...new Set([...methods, 'OPTIONS'])].join(', '),
    'access-control-allow-headers': CORS_ALLOWED_HEADERS.join(', '),
    'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
  };
}

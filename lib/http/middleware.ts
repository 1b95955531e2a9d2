import { randomUUID } from 'node:crypto';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import { traceOfRequest, traceScope } from '../core/trace-context.ts';
import { errorFields, log } from '../observability/log.ts';
import { recordRateLimited } from '../observability/metrics.ts';
import { withCallDeadline } from '../store/call-deadline.ts';
import { throttlingAsRateLimited } from '../store/throttling.ts';
import type { CommitAlong } from '../store/transact.ts';
import type * as z from '../zod.ts';
import { callerFromEvent } from './caller.ts';
import { corsHeaders } from './cors.ts';
import { errorBody, errorHeaders, statusOf } from './errors.ts';
import { IDEMPOTENCY_HEADER, idempotent, type SealAnswer, takesIdempotencyKey } from './idempotency.ts';
import { inInvocationOf, observability } from './invocation.ts';
import { publicPathPrefix } from './public-path.ts';
import type { HttpResult } from './responses.ts';
import { withRouteSpec } from './route-spec.ts';
import { firstUnstorable } from './storable.ts';
import { parseOrThrow, parseQuery } from './validation.ts';

/** docs/api.md: bodies over 256 KiB get 413. */
export const MAX_BODY_BYTES = 256 * 1024;
/**
 * Deepest nesting of objects and arrays a body may have. Bodies end up in DynamoDB items (which
 * refuse more than 32 levels) and in recursive walks (placeholders, signatures); 20 leaves room
 * for the levels the service adds around a body's values.
 */
export const MAX_BODY_DEPTH = 20;

type Out<S> = S extends z.ZodMiniType ? z.output<S> : undefined;

export interface HttpRequest<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  caller: Caller;
  headers: Record<string, string>;
  requestId: string;
  /**
   * For a route that commits in one transaction: the items that store its answer under the
   * request's `Idempotency-Key` in that same transaction, from the answer the route will give for
   * its result (undefined without a key). Pass it to the service as its `along`.
   */
  sealAnswer: <T>(answer: (result: T) => HttpResult) => CommitAlong<T> | undefined;
  /**
   * For a route whose answer a later transaction of the same request changes (after sealAnswer's
   * committed): the items that replace the stored answer in that transaction.
   */
  amendAnswer: <T>(answer: (result: T) => HttpResult) => CommitAlong<T> | undefined;
}

/**
 * Time kept back from a route's store calls for the stack's own (the `Idempotency-Key`'s answer)
 * and the answer: the route's calls are cut this long before the function's timeout
 * (lib/store/call-deadline.ts), so a request never dies in the middle of finding out whether it committed.
 */
export const ANSWER_RESERVE_MS = 1_500;
/** Time kept back from the stack's own store calls, for the answer to leave before the function's timeout. */
const ANSWER_MARGIN_MS = 250;

export type HttpHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export { type RouteSpecOf, withRouteSpec } from './route-spec.ts';

/** Lower-cased header map: API Gateway keeps the client's casing, HTTP says case does not matter. */
export function lowerCaseHeaders(headers: APIGatewayProxyEvent['headers'] | null | undefined): Record<string, string> {
  // Null prototype: a client's header named `__proto__` or `constructor` is a key, not a member.
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

function requestIdOf(event: APIGatewayProxyEvent): string {
  return event.requestContext?.requestId || randomUUID();
}

/** 415 / 413 / invalid JSON, in that order, before any schema sees the body. */
function readJsonBody(event: APIGatewayProxyEvent, headers: Record<string, string>, takesBody: boolean): unknown {
  const raw = event.body ?? '';
  const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
  if (bytes.length === 0) return undefined;
  const mediaType = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  }
  if (bytes.length > MAX_BODY_BYTES) {
    throw new AppError('payload_too_large', `The body is larger than ${MAX_BODY_BYTES} bytes.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new AppError('invalid_json', 'The body is not valid JSON.');
  }
  if (nestingExceeds(bytes.toString('utf8'), MAX_BODY_DEPTH)) {
    throw new AppError('validation_error', 'The request body is not valid.', [
      { path: '', message: `Objects and arrays may be nested at most ${MAX_BODY_DEPTH} levels deep.` },
    ]);
  }
  const unstorable = firstUnstorable(parsed);
  if (unstorable) throw new AppError('validation_error', 'The request body is not valid.', [unstorable]);
  // Many clients send `{}` with every POST; an empty object says nothing, so it is accepted.
  if (!takesBody && !isEmptyObject(parsed)) {
    throw new AppError('validation_error', 'This route takes no request body.', [
      { path: '', message: 'Send no body (or an empty object).' },
    ]);
  }
  return takesBody ? parsed : undefined;
}

/** Iterative scan of valid JSON text (no recursion, so any depth is safe): brackets inside strings do not count. */
function nestingExceeds(json: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

const isEmptyObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

/** The request's `Origin`, for the CORS headers of its answer. */
export const originOf = (event: APIGatewayProxyEvent): string | undefined => lowerCaseHeaders(event.headers)['origin'];

function toResponse(
  result: HttpResult,
  requestId: string,
  origin: string | undefined,
  pathPrefix = '',
): APIGatewayProxyResult {
  const headers: Record<string, string> = {
    ...corsHeaders(origin),
    'x-request-id': requestId,
    'cache-control': 'no-store',
    ...result.headers,
  };
  // Handlers write Location as a route path; the client needs it under the stage it called.
  if (headers['location']?.startsWith('/')) headers['location'] = pathPrefix + headers['location'];
  if (result.body === undefined) return { statusCode: result.status, headers, body: '' };
  headers['content-type'] = 'application/json; charset=utf-8';
  return { statusCode: result.status, headers, body: JSON.stringify(result.body) };
}

/** An error as its answer: AppErrors in the error format, anything else logged and hidden behind a 500. */
function errorResponse(error: unknown, event: APIGatewayProxyEvent): APIGatewayProxyResult {
  const requestId = requestIdOf(event);
  let err = throttlingAsRateLimited(error) ?? error;
  if (!(err instanceof AppError)) {
    log.error('unhandled error', { requestId, resource: event.resource, ...errorFields(err) });
    err = new AppError('internal_error', 'Something went wrong on our side. Try again later.');
  }
  const appError = err as AppError;
  if (appError.code === 'rate_limited') recordRateLimited();
  // A refusal for load from the store: the client gets 429, the log keeps what refused it.
  if (appError.code === 'rate_limited' && appError.cause !== undefined)
    log.warn('refused for load', { requestId, ...errorFields(appError) });
  return toResponse(
    { status: statusOf(appError), headers: errorHeaders(appError), body: errorBody(appError) },
    requestId,
    originOf(event),
  );
}

const errorResponder: MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> = {
  onError: async (request) => {
    request.response = errorResponse(request.error, request.event);
  },
};

/** The caller of a keyless route: no user id, so no owner check and no idempotency record can match it. */
const KEYLESS_CALLER: Caller = Object.freeze({
  userId: '',
  workspaceId: '',
  name: '',
  verified: false,
  operator: false,
});

/**
 * The shared HTTP stack of every route: caller from the authorizer, strict zod parsing of params,
 * query and body, the error format, `x-request-id` and CORS on every response, and
 * `Idempotency-Key` on every POST, PUT, PATCH and DELETE (each creates, moves or removes something).
 */
export function httpRoute<
  B extends z.ZodMiniType | undefined = undefined,
  Q extends z.ZodMiniType | undefined = undefined,
  P extends z.ZodMiniType | undefined = undefined,
>(
  spec: { body?: B; query?: Q; params?: P; keyless?: true },
  fn: (req: HttpRequest<Out<B>, Out<Q>, Out<P>>) => Promise<HttpResult>,
): HttpHandler {
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(observability())
    .use(errorResponder)
    .handler(async (event, context: Context) => {
      const requestId = requestIdOf(event);
      const headers = lowerCaseHeaders(event.headers);
      // Whether a key is needed is the route table's `auth`, enforced by the gateway; a keyless route
      // uses staticRoute, which reads no caller, or declares `keyless` (a GET that reads public data
      // by id, the signing keys' JWKS): it gets KEYLESS_CALLER, which owns nothing.
      const caller = spec.keyless ? KEYLESS_CALLER : callerFromEvent(event);
      const params = spec.params ? parsePathOrNotFound(spec.params, event.pathParameters ?? {}) : undefined;
      const query = parseQuery(spec.query, event.queryStringParameters);
      const rawBody = readJsonBody(event, headers, spec.body !== undefined);
      const body = spec.body ? parseOrThrow(spec.body, rawBody, 'request body') : undefined;
      // The trace the route's events carry (lib/core/trace-context.ts); the answer says which it is.
      const trace = traceOfRequest(headers);
      const traced = (result: HttpResult): HttpResult => ({
        ...result,
        headers: {
          traceresponse: trace.traceparent,
          'x-service-trace': trace.started ? 'started' : 'continued',
          ...result.headers,
        },
      });
      const respond = (result: HttpResult) =>
        toResponse(traced(result), requestId, headers['origin'], publicPathPrefix(event));
      const remainingMs = context?.getRemainingTimeInMillis?.();
      const now = Date.now();
      const callDeadline = remainingMs === undefined ? undefined : now + remainingMs - ANSWER_RESERVE_MS;
      // The stack's own calls after the route (the key's answer or release) are bounded too, by the
      // function's end less a margin for the answer itself: a store that never answers must not hold
      // the request past its timeout (the SDK's own calls have no time limit).
      const stackDeadline = remainingMs === undefined ? undefined : now + remainingMs - ANSWER_MARGIN_MS;
      const run = (seal?: SealAnswer, amend?: SealAnswer) =>
        withCallDeadline(callDeadline, () =>
          traceScope.run(trace, async () => {
            const alongOf =
              (store?: SealAnswer) =>
              <T>(answer: (result: T) => HttpResult): CommitAlong<T> | undefined =>
                store && ((result: T) => [store(respond(answer(result)))]);
            const sealAnswer = alongOf(seal);
            const amendAnswer = alongOf(amend);
            return respond(
              await fn({
                body: body as Out<B>,
                query: query as Out<Q>,
                params: params as Out<P>,
                caller,
                headers,
                requestId,
                sealAnswer,
                amendAnswer,
              }),
            );
          }),
        );
      const key = headers[IDEMPOTENCY_HEADER];
      if (!takesIdempotencyKey(event.httpMethod) || key === undefined) return await run();
      return await withCallDeadline(stackDeadline, () =>
        idempotent(
          {
            userId: caller.userId,
            key,
            method: event.httpMethod,
            // The route and its ids rather than `event.path`, which a custom domain's base path would change.
            path: `${event.resource} ${JSON.stringify(Object.entries(event.pathParameters ?? {}).sort())}`,
            rawBody: event.body ?? '',
            requestId,
            remainingMs: remainingMs ?? 10_000,
            freshHeaders: corsHeaders(headers['origin']),
            claimDeadline: callDeadline,
          },
          (seal, amend) => run(seal, amend).catch((err: unknown) => errorResponse(err, event)),
        ),
      );
    });
  return withRouteSpec(inInvocationOf(handler) as unknown as HttpHandler, spec);
}

/**
 * Path parameters are ids: one that cannot name anything (wrong shape, too long for a key) is a
 * 404 like an unknown one, and never reaches the store.
 */
export function parsePathOrNotFound<S extends z.ZodMiniType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new AppError('not_found', 'Not found.');
  return result.data;
}

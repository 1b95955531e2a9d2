/**
 * The stack of the push channel's WebSocket routes (API Gateway WebSocket API, Lambda proxy
 * integration; local/gateway/push-gateway.ts builds the same events). `$connect` authenticates
 * the API key, validates the query with strict zod and answers in docs/api.md's error format: a
 * non-2xx answer refuses the handshake with that status. `$default` and `$disconnect` name only
 * the connection; what they answer goes nowhere (the channel's answers are frames it posts).
 */
import { randomUUID } from 'node:crypto';
import { bearerToken, findCallerByApiKey, hashApiKey } from '../accounts/api-keys.ts';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import { PUSH } from '../core/settings.ts';
import { inInvocation } from '../observability/lambda.ts';
import type { InvocationContext } from '../observability/log.ts';
import { errorFields, log } from '../observability/log.ts';
import { flushMetrics } from '../observability/metrics.ts';
import { deadlineOf, withCallDeadline } from '../store/call-deadline.ts';
import { throttlingAsRateLimited } from '../store/throttling.ts';
import type * as z from '../zod.ts';
import { errorBody, errorHeaders, statusOf } from './errors.ts';
import { ANSWER_RESERVE_MS, lowerCaseHeaders } from './middleware.ts';
import { parseQuery } from './validation.ts';

/** What API Gateway hands a WebSocket route's function (the fields this service reads). */
export interface SocketEvent {
  requestContext: { connectionId: string; routeKey: string; eventType: string; requestId?: string };
  headers?: Record<string, string | undefined> | null;
  queryStringParameters?: Record<string, string | undefined> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
}

export interface SocketResult {
  statusCode: number;
  headers?: Record<string, string>;
  body?: string;
}

type Handler = (event: SocketEvent, context?: InvocationContext) => Promise<SocketResult>;

/** The subprotocol item that carries the key: browsers' WebSocket can set no header, but can offer subprotocols. */
const KEY_PROTOCOL_PREFIX = 'key.';

/** The API key of a handshake: `Authorization: Bearer …` (servers), or a `key.<API key>` subprotocol (browsers). */
export function handshakeKey(headers: Record<string, string>): { key: string | undefined; offered: string[] } {
  const offered = (headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const fromProtocol = offered.find((p) => p.startsWith(KEY_PROTOCOL_PREFIX))?.slice(KEY_PROTOCOL_PREFIX.length);
  return { key: bearerToken(headers['authorization']) ?? fromProtocol, offered };
}

const failure = (thrown: unknown, requestId: string): SocketResult => {
  const err = throttlingAsRateLimited(thrown) ?? thrown;
  if (!(err instanceof AppError)) log.error('unhandled error', { requestId, ...errorFields(err) });
  const appError =
    err instanceof AppError
      ? err
      : new AppError('internal_error', 'Something went wrong on our side. Try again later.');
  return {
    statusCode: statusOf(appError),
    headers: { 'content-type': 'application/json; charset=utf-8', ...errorHeaders(appError) },
    body: JSON.stringify(errorBody(appError)),
  };
};

function run(fn: (event: SocketEvent, requestId: string) => Promise<SocketResult>): Handler {
  return (event, context) => {
    const requestId = event.requestContext.requestId || randomUUID();
    return inInvocation(context, requestId, async () => {
      try {
        // Bounded as an HTTP route's calls are: a store that does not answer gets the route an answer in time.
        return await withCallDeadline(deadlineOf(context, ANSWER_RESERVE_MS), () => fn(event, requestId));
      } catch (thrown) {
        return failure(thrown, requestId);
      } finally {
        flushMetrics();
      }
    });
  };
}

/** `$connect`: the key's caller and the parsed query; `open` throws an AppError to refuse. */
export function socketConnectRoute<Q extends z.ZodMiniType>(
  query: Q,
  open: (request: { caller: Caller; keyHash: string; query: z.output<Q>; connectionId: string }) => Promise<void>,
): Handler {
  return run(async (event) => {
    const headers = lowerCaseHeaders(event.headers as Record<string, string | undefined>);
    const { key, offered } = handshakeKey(headers);
    const caller = key ? await findCallerByApiKey(key) : undefined;
    if (!caller)
      throw new AppError(
        'unauthorized',
        `A valid API key is required (Authorization: Bearer <API_KEY>, or the subprotocol ${KEY_PROTOCOL_PREFIX}<API_KEY>).`,
      );
    const parsed = parseQuery(query, event.queryStringParameters) as z.output<Q>;
    await open({ caller, keyHash: hashApiKey(key!), query: parsed, connectionId: event.requestContext.connectionId });
    // A browser fails the handshake unless the server picks one of the subprotocols it offered.
    return offered.includes(PUSH.protocol)
      ? { statusCode: 200, headers: { 'Sec-WebSocket-Protocol': PUSH.protocol } }
      : { statusCode: 200 };
  });
}

/** `$default` and `$disconnect`: the connection id and the message body (none on $disconnect). */
export function socketRoute(
  fn: (request: { connectionId: string; body: string; requestId: string }) => Promise<void>,
): Handler {
  return run(async (event, requestId) => {
    const raw = event.body ?? '';
    const body = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
    await fn({ connectionId: event.requestContext.connectionId, body, requestId });
    return { statusCode: 200 };
  });
}

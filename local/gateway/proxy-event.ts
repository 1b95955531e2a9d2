import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Caller } from '../../lib/core/caller.ts';
import { ROUTE_TIMEOUTS } from '../../lib/core/settings.ts';
import { callerToContext } from '../../lib/http/caller.ts';
import type { Route } from '../../lib/routes.ts';
import { lambdaContext } from '../lambda/context.ts';
import { runAsRoute } from '../lambda/grants.ts';
import { loadHandler } from '../lambda/handlers.ts';
import { isStreamingHandler } from '../lambda/streaming.ts';

export interface ProxyEventInit {
  route: Route;
  /** The request path as sent; defaults to the route's path template. */
  path?: string;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  query?: Record<string, string> | null;
  multiValueQuery?: Record<string, string[]> | null;
  pathParameters?: Record<string, string> | null;
  body?: string | null;
  requestId?: string;
  /** The authorizer's context as API Gateway passes it (strings), or a caller to derive it from. */
  authorizer?: Record<string, unknown> | null;
  caller?: Caller;
  sourceIp?: string;
}

/**
 * Name → value maps of a request's headers or query (the last value of a repeated name wins, as in
 * API Gateway's single-value maps). Null-prototype objects: names come from the client, and
 * `toString`, `constructor` or `__proto__` must be a key like any other, not an inherited member.
 */
export function lastValues(pairs: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of pairs) out[name] = value;
  return out;
}

/** Name → every value, in order (API Gateway's multi-value maps); null-prototype like lastValues. */
export function allValues(pairs: Iterable<[string, string]>): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null);
  for (const [name, value] of pairs) {
    out[name] ??= [];
    out[name].push(value);
  }
  return out;
}

/** The REST API (v1) Lambda proxy event API Gateway sends after the authorizer. */
export function proxyEvent(init: ProxyEventInit): APIGatewayProxyEvent {
  const { route } = init;
  const path = init.path ?? route.path;
  const authorizer =
    init.authorizer ?? (init.caller ? { ...callerToContext(init.caller), principalId: init.caller.userId } : null);
  return {
    resource: route.path,
    path,
    httpMethod: route.method,
    headers: init.headers ?? {},
    multiValueHeaders: init.multiValueHeaders ?? allValues(Object.entries(init.headers ?? {})),
    queryStringParameters: init.query ?? null,
    multiValueQueryStringParameters:
      init.multiValueQuery ?? (init.query ? allValues(Object.entries(init.query)) : null),
    pathParameters: init.pathParameters ?? null,
    stageVariables: null,
    body: init.body ?? null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer,
      httpMethod: route.method,
      path,
      protocol: 'HTTP/1.1',
      requestId: init.requestId ?? randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: route.name,
      resourcePath: route.path,
      stage: 'local',
      identity: {
        sourceIp: init.sourceIp ?? '127.0.0.1',
        userAgent: null,
      } as APIGatewayProxyEvent['requestContext']['identity'],
    },
  };
}

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Runs a (non-streaming) route's handler with an event, as Lambda would, with the route's grants only. */
export async function invokeRoute(route: Route, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const handler = await loadHandler<ProxyHandler>(route.handler);
  if (route.streaming || isStreamingHandler(handler))
    throw new Error(
      `${route.name}: a streaming route is run with loadStreamingHandler, and only a route the table marks streaming may stream.`,
    );
  return runAsRoute(route, () =>
    handler(event, lambdaContext(route.name, route.timeoutSeconds ?? ROUTE_TIMEOUTS.defaultTimeoutSeconds)),
  );
}

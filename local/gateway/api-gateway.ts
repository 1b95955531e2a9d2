import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { AppError, rateLimited } from '../../lib/core/errors.ts';
import { KEYLESS_ROUTE_LIMITS, ROUTE_TIMEOUTS } from '../../lib/core/settings.ts';
import { resourceMatches } from '../../lib/http/authorizer-policy.ts';
import { corsHeaders, preflightHeaders } from '../../lib/http/cors.ts';
import { errorBody, errorHeaders, statusOf, THROTTLED_MESSAGE } from '../../lib/http/errors.ts';
import { log } from '../../lib/observability/log.ts';
import { routes as defaultRoutes, type Route, workers } from '../../lib/routes.ts';
import { lambdaContext } from '../lambda/context.ts';
import { runAsRoute, runAsWorker } from '../lambda/grants.ts';
import { loadHandler } from '../lambda/handlers.ts';
import {
  installAwsLambdaGlobal,
  type LocalResponseStream,
  loadStreamingHandler,
  type StreamMetadata,
} from '../lambda/streaming.ts';
import { createKeyThrottle, type KeyLimits, type KeyThrottle } from './key-throttle.ts';
import { allValues, invokeRoute, lastValues, proxyEvent } from './proxy-event.ts';
import { attachPushGateway } from './push-gateway.ts';
import { requestUrl } from './request-url.ts';
import { createRouter } from './router.ts';
import { isWebPath, serveWebAsset } from './web-assets.ts';

/** API Gateway's own payload cap (10 MB); the handlers enforce the API's 256 KiB. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;

type Authorizer = (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

/** The gateway's own answers (no route, no key, too large, throttled) carry CORS too, as API Gateway's gateway responses do. */
function sendError(
  req: IncomingMessage,
  res: ServerResponse,
  err: AppError,
  requestId: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(statusOf(err), {
    ...corsHeaders(req.headers.origin),
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': requestId,
    ...errorHeaders(err),
    ...headers,
  });
  res.end(JSON.stringify(errorBody(err)));
}

/** The methods the route table has for `path` (none: an unknown path). */
function methodsOf(match: ReturnType<typeof createRouter>, path: string): string[] {
  // OPTIONS is no route's method: the answer is the path's methods, or nothing for an unknown path.
  const found = match('OPTIONS', path);
  return found && 'allow' in found ? found.allow : [];
}

/** Preflight for every path of the route table (API Gateway: `defaultCorsPreflightOptions`); 404 elsewhere. */
function answerPreflight(
  req: IncomingMessage,
  res: ServerResponse,
  match: ReturnType<typeof createRouter>,
  path: string,
  requestId: string,
): void {
  const methods = methodsOf(match, path);
  if (methods.length === 0) {
    sendError(req, res, new AppError('not_found', `No route for OPTIONS ${path}.`), requestId);
    return;
  }
  res.writeHead(204, { ...preflightHeaders(req.headers.origin, methods), 'x-request-id': requestId });
  res.end();
}

function readBody(req: IncomingMessage): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= GATEWAY_MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > GATEWAY_MAX_BODY ? 'too_large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function toProxyEvent(
  req: IncomingMessage,
  url: URL,
  route: Route,
  pathParameters: Record<string, string> | null,
  body: Buffer,
  requestId: string,
  authorizer: Record<string, unknown> | null,
): APIGatewayProxyEvent {
  const headerPairs: [string, string][] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) headerPairs.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
  const headers = lastValues(headerPairs);
  const query = lastValues(url.searchParams);
  const hasQuery = Object.keys(query).length > 0;
  return proxyEvent({
    route,
    path: url.pathname,
    headers,
    multiValueHeaders: allValues(headerPairs),
    query: hasQuery ? query : null,
    multiValueQuery: hasQuery ? allValues(url.searchParams) : null,
    pathParameters,
    body: body.length ? body.toString('utf8') : null,
    requestId,
    authorizer,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
  });
}

/**
 * Runs the authorizer like API Gateway does; undefined = answer 401. As with the API's key source
 * AUTHORIZER, an answer without `usageIdentifierKey` leaves no key to limit by and is refused too.
 */
async function authorize(
  req: IncomingMessage,
  route: Route,
  path: string,
): Promise<{ context: Record<string, unknown>; usageKey: string } | undefined> {
  const token = req.headers['authorization'];
  if (!token) return undefined;
  const authorizer = await loadHandler<Authorizer>(workers.authorizer);
  const methodArn = `arn:aws:execute-api:local:000000000000:local/local/${route.method}${path}`;
  try {
    const result = await runAsWorker('authorizer', () =>
      authorizer({
        type: 'TOKEN',
        authorizationToken: token,
        methodArn,
      }),
    );
    // As API Gateway: the request's own method ARN must be among the resources the policy allows.
    const allowed = result.policyDocument.Statement.some(
      (s) =>
        s.Effect === 'Allow' &&
        'Resource' in s &&
        [s.Resource].flat().some((r) => r !== undefined && resourceMatches(r, methodArn)),
    );
    if (!allowed || !result.usageIdentifierKey) return undefined;
    return { context: { ...result.context, principalId: result.principalId }, usageKey: result.usageIdentifierKey };
  } catch {
    return undefined;
  }
}

/** The usage plan's answer when a key is over its limits, as the THROTTLED / QUOTA_EXCEEDED gateway responses give it. */
function keyLimited(throttle: KeyThrottle, usageKey: string): AppError | undefined {
  const verdict = throttle.take(usageKey);
  if (verdict.ok) return undefined;
  return verdict.reason === 'quota'
    ? rateLimited("This API key has used today's request quota; it resets at 00:00 UTC.", verdict.retryAfterSeconds)
    : rateLimited(THROTTLED_MESSAGE, verdict.retryAfterSeconds);
}

/**
 * A keyless route's method throttle (infra/keyless-throttles.ts): one bucket per route for all its
 * callers together, as API Gateway's; the same THROTTLED answer.
 */
function routeLimited(throttle: KeyThrottle, route: Route): AppError | undefined {
  const verdict = throttle.take(route.name);
  return verdict.ok ? undefined : rateLimited(THROTTLED_MESSAGE, verdict.retryAfterSeconds);
}

async function runStreaming(
  handler: (event: unknown, stream: LocalResponseStream, context: unknown) => Promise<void>,
  event: APIGatewayProxyEvent,
  route: Route,
  res: ServerResponse,
  requestId: string,
): Promise<void> {
  let headSent = false;
  const sendHead = (metadata: StreamMetadata = { statusCode: 200 }) => {
    if (headSent) return;
    headSent = true;
    res.writeHead(metadata.statusCode, { 'x-request-id': requestId, ...metadata.headers });
    res.flushHeaders();
  };
  const stream: LocalResponseStream = new Writable({
    write(chunk, _encoding, callback) {
      sendHead();
      res.write(chunk, callback);
    },
    final(callback) {
      sendHead();
      res.end(callback);
    },
  });
  stream.setMetadata = sendHead;
  // A client that goes away ends the stream, as Lambda does when API Gateway closes the connection.
  res.on('close', () => stream.destroy());
  await runAsRoute(route, () =>
    handler(event, stream, lambdaContext(route.name, route.timeoutSeconds ?? ROUTE_TIMEOUTS.defaultTimeoutSeconds)),
  );
}

export interface LocalApi {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** One answer of the local gateway, for observers (the test suite holds each to the OpenAPI document). */
export interface Exchange {
  method: string;
  path: string;
  /** The route the request matched; undefined for unknown paths and preflights. */
  route: Route | undefined;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface LocalApiOptions {
  /** Per-key limits (the usage plan's); default API_KEY_LIMITS. */
  keyLimits?: KeyLimits;
  /** Per keyless route, all callers together (the stage's method throttles); default KEYLESS_ROUTE_LIMITS. */
  keylessLimits?: KeyLimits;
  /**
   * Whether the stage's usage plan holds an API key of this usage identifier. API Gateway refuses a
   * request whose authorizer named one it does not hold (INVALID_API_KEY, 401) before any handler.
   * Absent: every identifier, as the local runtime registers its keys in no plan.
   */
  usagePlanHolds?: (usageKey: string) => boolean;
  /** The throttle's clock; tests inject one. */
  now?: () => number;
  onExchange?: (exchange: Exchange) => void;
}

/** Records what is written to `res` and reports it once the answer is finished. */
function observe(
  req: IncomingMessage,
  res: ServerResponse,
  onExchange: (exchange: Exchange) => void,
  routeOf: () => Route | undefined,
): void {
  const chunks: Buffer[] = [];
  let written: Record<string, string> = {};
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    const headers = rest.find((r) => typeof r === 'object' && r !== null);
    if (headers) written = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
    return writeHead(status, ...rest);
  }) as typeof res.writeHead;
  const keep = (chunk: unknown) => {
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function')
      chunks.push(Buffer.from(chunk as string | Uint8Array));
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk);
    return write(chunk, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    keep(chunk);
    return end(chunk, ...rest);
  }) as typeof res.end;
  res.once('close', () => {
    const set = Object.fromEntries(
      Object.entries(res.getHeaders()).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(', ') : String(v)]),
    );
    const headers = { ...set, ...written };
    onExchange({
      method: req.method ?? 'GET',
      path: requestUrl(req)?.pathname ?? req.url ?? '/',
      route: routeOf(),
      status: res.statusCode,
      headers,
      body: Buffer.concat(chunks),
    });
  });
}

/** Each local API's requests still being handled (its close waits for them). */
const inFlight = new WeakMap<Server, ReadonlySet<Promise<void>>>();

/**
 * The API Gateway stand-in: HTTP → REST proxy event → the route's handler → HTTP; on the same port,
 * the push channel's WebSocket API and its @connections API (push-gateway.ts).
 */
export function createLocalApi(table: readonly Route[] = defaultRoutes, options: LocalApiOptions = {}): Server {
  installAwsLambdaGlobal();
  const match = createRouter(table);
  const throttle = createKeyThrottle(options.keyLimits, options.now);
  const keylessThrottle = createKeyThrottle(
    options.keylessLimits ?? { ...KEYLESS_ROUTE_LIMITS, dailyQuota: Number.MAX_SAFE_INTEGER },
    options.now,
  );
  const running = new Set<Promise<void>>();
  const server = createServer((req, res) => {
    // `handle` answers every failure itself; should anything escape it, it is logged here, since a
    // rejection nobody hears ends the process (and with it every other client's runtime).
    const handled = handle(req, res).catch((err: unknown) => {
      log.error('local gateway: a request failed outside its handler', { error: String(err) });
      res.destroy();
    });
    running.add(handled);
    void handled.finally(() => running.delete(handled));
  });
  inFlight.set(server, running);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (push.handleConnectionsApi(req, res)) return;
    const requestId = randomUUID();
    let matched: Route | undefined;
    if (options.onExchange) observe(req, res, options.onExchange, () => matched);
    try {
      const url = requestUrl(req);
      if (!url) {
        await readBody(req);
        return sendError(req, res, new AppError('not_found', 'No route for this request target.'), requestId);
      }
      if (isWebPath(url.pathname)) {
        await readBody(req);
        return serveWebAsset(req, res, url.pathname);
      }
      if (req.method === 'OPTIONS') {
        await readBody(req);
        return answerPreflight(req, res, match, url.pathname, requestId);
      }
      const found = match(req.method ?? 'GET', url.pathname);
      if (found === undefined) {
        await readBody(req);
        return sendError(req, res, new AppError('not_found', `No route for ${req.method} ${url.pathname}.`), requestId);
      }
      if ('allow' in found) {
        await readBody(req);
        const allow = [...found.allow, 'OPTIONS'].join(', ');
        return sendError(
          req,
          res,
          new AppError('method_not_allowed', `${url.pathname} takes ${allow}, not ${req.method}.`),
          requestId,
          { allow },
        );
      }
      const { route, pathParameters } = found;
      matched = route;
      const body = await readBody(req);
      if (body === 'too_large')
        return sendError(req, res, new AppError('payload_too_large', 'The body is too large.'), requestId);
      let authorizer: Record<string, unknown> | null = null;
      if (route.auth) {
        const authorized = await authorize(req, route, url.pathname);
        if (!authorized)
          return sendError(
            req,
            res,
            new AppError('unauthorized', 'A valid API key is required (Authorization: Bearer <API_KEY>).'),
            requestId,
          );
        if (options.usagePlanHolds && !options.usagePlanHolds(authorized.usageKey))
          return sendError(
            req,
            res,
            new AppError('unauthorized', 'This API key is not enabled for this API.'),
            requestId,
          );
        const limited = keyLimited(throttle, authorized.usageKey);
        if (limited) return sendError(req, res, limited, requestId);
        authorizer = authorized.context;
      } else {
        const limited = routeLimited(keylessThrottle, route);
        if (limited) return sendError(req, res, limited, requestId);
      }
      const event = toProxyEvent(req, url, route, pathParameters, body, requestId, authorizer);
      if (route.streaming) return await runStreaming(await loadStreamingHandler(route), event, route, res, requestId);
      const result = await invokeRoute(route, event);
      res.writeHead(result.statusCode, { ...(result.headers as Record<string, string>) });
      res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
    } catch (err) {
      // What API Gateway does when the function itself fails: a 5xx, never the error text.
      log.error('local gateway: handler failed', {
        requestId,
        error: err instanceof Error ? err.message : String(err),
      });
      if (!res.headersSent)
        sendError(req, res, new AppError('internal_error', 'Something went wrong on our side.'), requestId);
      else res.destroy();
    }
  };
  const push = attachPushGateway(server);
  return server;
}

/** The URL of the local API listening on `host` and `port`. */
export const localApiUrl = (host: string, port: number): string =>
  `http://${host === '0.0.0.0' ? 'localhost' : host}:${port}`;

export async function listen(server: Server, port: number, host = '127.0.0.1'): Promise<LocalApi> {
  let refused: ((err: Error) => void) | undefined;
  await new Promise<void>((resolve, reject) => {
    refused = reject;
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  server.off('error', refused!);
  // Once listening, a server's 'error' is a connection it could not accept (EMFILE under a flood of
  // them): said, and the server goes on; unheard, it would end the process.
  server.on('error', (err: NodeJS.ErrnoException) =>
    log.error('local gateway: the server failed to accept a connection', { code: err.code, error: err.message }),
  );
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    server,
    url: localApiUrl(host, actualPort),
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // A handler outlives its connection until it next looks (a stream's loop wakes within a poll,
      // sees its client gone and ends): once closed, nothing of this API runs, nor reads the store.
      await Promise.allSettled(inFlight.get(server) ?? []);
    },
  };
}

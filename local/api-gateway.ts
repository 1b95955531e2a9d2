import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { AppError, errorBody } from '../lib/http/errors.ts';
import { log } from '../lib/log.ts';
import { routes as defaultRoutes, workers, type Route } from '../lib/routes.ts';
import { loadHandler } from './handlers.ts';
import { allValues, invokeRoute, lastValues, proxyEvent } from './proxy-event.ts';
import { lambdaContext } from './lambda-context.ts';
import { createRouter } from './router.ts';
import { installAwsLambdaGlobal, isStreamingHandler, type LocalResponseStream, type StreamMetadata } from './streaming.ts';

/** API Gateway's own payload cap (10 MB); the handlers enforce the API's 256 KiB. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;

type Authorizer = (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

function sendError(res: ServerResponse, err: AppError, requestId: string): void {
  res.writeHead(err.status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId });
  res.end(JSON.stringify(errorBody(err)));
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

function toProxyEvent(req: IncomingMessage, url: URL, route: Route, pathParameters: Record<string, string> | null, body: Buffer, requestId: string, authorizer: Record<string, unknown> | null): APIGatewayProxyEvent {
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

/** Runs the authorizer like API Gateway does; undefined = answer 401. */
async function authorize(req: IncomingMessage, route: Route): Promise<Record<string, unknown> | undefined> {
  const token = req.headers['authorization'];
  if (!token) return undefined;
  const authorizer = await loadHandler<Authorizer>(workers.authorizer);
  try {
    const result = await authorizer({ type: 'TOKEN', authorizationToken: token, methodArn: `arn:aws:execute-api:local:000000000000:local/local/${route.method}${route.path}` });
    const allowed = result.policyDocument.Statement.some((s) => s.Effect === 'Allow');
    return allowed ? { ...result.context, principalId: result.principalId } : undefined;
  } catch {
    return undefined;
  }
}

async function runStreaming(handler: (event: unknown, stream: LocalResponseStream, context: unknown) => Promise<void>, event: APIGatewayProxyEvent, route: Route, res: ServerResponse, requestId: string): Promise<void> {
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
  await handler(event, stream, lambdaContext(route.name, route.timeoutSeconds ?? 10));
}

export interface LocalApi {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** The API Gateway stand-in: HTTP → REST proxy event → the route's handler → HTTP. */
export function createLocalApi(table: readonly Route[] = defaultRoutes): Server {
  installAwsLambdaGlobal();
  const match = createRouter(table);
  return createServer(async (req, res) => {
    const requestId = randomUUID();
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const found = match(req.method ?? 'GET', url.pathname);
      if (found === undefined || found === 'method') {
        await readBody(req);
        return sendError(res, new AppError('not_found', `No route for ${req.method} ${url.pathname}.`), requestId);
      }
      const { route, pathParameters } = found;
      const body = await readBody(req);
      if (body === 'too_large') return sendError(res, new AppError('payload_too_large', 'The body is too large.'), requestId);
      let authorizer: Record<string, unknown> | null = null;
      if (route.auth) {
        const context = await authorize(req, route);
        if (!context) return sendError(res, new AppError('unauthorized', 'A valid API key is required (Authorization: Bearer <API_KEY>).'), requestId);
        authorizer = context;
      }
      const event = toProxyEvent(req, url, route, pathParameters, body, requestId, authorizer);
      const handler = await loadHandler(route.handler);
      if (isStreamingHandler(handler)) return await runStreaming(handler, event, route, res, requestId);
      const result = await invokeRoute(route, event);
      res.writeHead(result.statusCode, { ...(result.headers as Record<string, string>) });
      res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
    } catch (err) {
      // What API Gateway does when the function itself fails: a 5xx, never the error text.
      log.error('local gateway: handler failed', { requestId, error: err instanceof Error ? err.message : String(err) });
      if (!res.headersSent) sendError(res, new AppError('internal_error', 'Something went wrong on our side.'), requestId);
      else res.destroy();
    }
  });
}

export async function listen(server: Server, port: number, host = '127.0.0.1'): Promise<LocalApi> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    server,
    url: `http://${host === '0.0.0.0' ? 'localhost' : host}:${actualPort}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

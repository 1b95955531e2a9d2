/**
 * The push channel's API Gateway WebSocket API, on the local API's own port: a WebSocket upgrade on
 * PUSH.localPath runs `$connect` (a non-2xx answer refuses the handshake with that status and
 * body), each message runs `$default`, the close runs `$disconnect`, with the very handlers of
 * lib/routes.ts `socketRoutes` inside their grants. Beside it, the management API the functions
 * post with: `POST|GET|DELETE /@connections/{id}`, 410 GoneException for a connection that is not
 * open, as API Gateway answers. Like API Gateway's, it wants a SigV4-signed request (it checks the
 * scheme, not the signature: there is no IAM here), so a plain request from a browser page cannot post.
 * What a client sends is held to API Gateway's sizes (websocket-frames.ts) and to the channel's
 * message rate (messageVerdict, below); every socket and WebSocket has an error path, so no client
 * can end the local runtime (test/local/push-gateway-hostile.test.ts).
 *
 * `ws` (npm) is the WebSocket server: Node has a WebSocket client built in, but no server, and
 * `ws` is the library Node's own tests and most Node servers use. It runs only here, in the local
 * runtime; no function bundles it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { PUSH } from '../../lib/core/settings.ts';
import { connectionVerdict, type MessageVerdict } from '../../lib/events/push/message-limit.ts';
import { errorBody } from '../../lib/http/errors.ts';
import type { SocketEvent, SocketResult } from '../../lib/http/socket-route.ts';
import { log } from '../../lib/observability/log.ts';
import { type SocketRoute, socketRoutes } from '../../lib/routes.ts';
import { lambdaContext } from '../lambda/context.ts';
import { runAsSocketRoute } from '../lambda/grants.ts';
import { loadHandler } from '../lambda/handlers.ts';
import { requestUrl } from './request-url.ts';
import { frameSizeGuard, PUSH_WEBSOCKET_LIMITS } from './websocket-frames.ts';

/** The close codes for a client that broke a limit (RFC 6455 §7.4.1): API Gateway's for sizes, and this gateway's for rates. */
const MESSAGE_TOO_BIG = 1009;
const POLICY_VIOLATION = 1008;

/**
 * The push channel's per-connection message rate (lib/events/push/message-limit.ts), in memory. The
 * sync function counts the same window in the store, which is what holds deployed; here the
 * refused messages are answered before any function runs, since in this one process a flood's
 * invocations would take every other client's CPU. The verdict, its frame and its numbers are the
 * function's; the close is 1008 here, where a deployed function can only delete the connection (1000).
 */
function messageVerdict(connection: Open, nowMs: number): MessageVerdict {
  const { windowMs } = PUSH.messageLimits;
  if (nowMs - connection.window.start >= windowMs) connection.window = { start: nowMs, count: 0 };
  connection.window.count += 1;
  return connectionVerdict(connection.window.count, connection.window.start + windowMs - nowMs);
}
const CONNECTIONS_PATH = /^\/@connections\/([^/]+)$/;

type SocketHandler = (event: SocketEvent, context: unknown) => Promise<SocketResult>;

interface Open {
  socket: WebSocket;
  connectedAt: Date;
  lastActiveAt: Date;
  sourceIp: string;
  /** The connection's message window (PUSH.messageLimits), counted here before anything is invoked. */
  window: { start: number; count: number };
}

/** A connection id from the path; one that does not decode names no connection (410, as any unknown id). */
function decodedId(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

const routeOf = (key: SocketRoute['routeKey']): SocketRoute => socketRoutes.find((r) => r.routeKey === key)!;

async function invoke(key: SocketRoute['routeKey'], event: SocketEvent): Promise<SocketResult> {
  const route = routeOf(key);
  const handler = await loadHandler<SocketHandler>(route.handler);
  return runAsSocketRoute(route, () => handler(event, lambdaContext(route.name, PUSH.functionTimeoutSeconds)));
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) out[req.rawHeaders[i]!] = req.rawHeaders[i + 1]!;
  return out;
}

function refuseUpgrade(socket: Duplex, status: number, body = '', headers: Record<string, string> = {}): void {
  // The client may be gone already (it reset the connection while $connect ran): nothing to answer.
  if (socket.destroyed || !socket.writable) return;
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, 'Connection: close'];
  for (const [name, value] of Object.entries({ 'Content-Type': 'application/json; charset=utf-8', ...headers }))
    lines.push(`${name}: ${value}`);
  lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

export interface PushGateway {
  /** Answers a request to the @connections API; false when `req` is not one (the REST routes take it). */
  handleConnectionsApi(req: IncomingMessage, res: ServerResponse): boolean;
}

/** Serves the channel on `server`'s upgrades; its open connections are closed when the server closes. */
export function attachPushGateway(server: Server): PushGateway {
  const open = new Map<string, Open>();
  const chosen = new WeakMap<IncomingMessage, string>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: PUSH_WEBSOCKET_LIMITS.maxMessageBytes,
    handleProtocols: (_offered, req) => chosen.get(req) ?? false,
  });

  const context = (connectionId: string, routeKey: string, eventType: string) => ({
    connectionId,
    routeKey,
    eventType,
    requestId: randomUUID(),
    stage: 'local',
    apiId: 'local',
  });

  const disconnect = (connectionId: string): void => {
    invoke('$disconnect', { requestContext: context(connectionId, '$disconnect', 'DISCONNECT') }).catch((err: Error) =>
      log.error('local push gateway: $disconnect failed', { error: err.message }),
    );
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node's HTTP server stops listening for the socket's errors once it hands an upgrade over: a
    // client that resets the connection (ECONNRESET, EPIPE on the refusal) would end the process.
    // `ws` adds its own listener once it takes the socket; this one stays for the time before.
    socket.on('error', (err: NodeJS.ErrnoException) => {
      log.debug('local push gateway: a handshake connection failed', { code: err.code });
      socket.destroy();
    });
    (async () => {
      const url = requestUrl(req);
      if (url?.pathname !== PUSH.localPath) return refuseUpgrade(socket, 404, '{"message":"Not Found"}');
      // API Gateway's connection ids: 10 random bytes, base64.
      const connectionId = randomBytes(10).toString('base64');
      const query = Object.fromEntries(url.searchParams);
      let answer: SocketResult;
      try {
        answer = await invoke('$connect', {
          requestContext: context(connectionId, '$connect', 'CONNECT'),
          headers: headersOf(req),
          queryStringParameters: Object.keys(query).length > 0 ? query : null,
          isBase64Encoded: false,
        });
      } catch (err) {
        log.error('local push gateway: $connect failed', { error: (err as Error).message });
        return refuseUpgrade(socket, 500, '{"message":"Internal server error"}');
      }
      if (answer.statusCode < 200 || answer.statusCode > 299)
        return refuseUpgrade(socket, answer.statusCode, answer.body ?? '', answer.headers);
      const protocol = Object.entries(answer.headers ?? {}).find(([k]) => k.toLowerCase() === 'sec-websocket-protocol');
      if (protocol) chosen.set(req, protocol[1]);
      // A client gone while $connect ran never gets its connection (`ws` would drop the socket and
      // call nothing back): its $disconnect runs now, so the slot $connect took is freed at once.
      if (socket.destroyed || !socket.readable || !socket.writable) return disconnect(connectionId);
      wss.handleUpgrade(req, socket, head, (ws) => {
        // A frame over API Gateway's frame size closes the connection, as there; `ws` checks the
        // message size itself (maxPayload) and closes with 1009, and with 1007 for text that is
        // not UTF-8, then emits the error here, where it is only logged.
        socket.prependListener(
          'data',
          frameSizeGuard(PUSH_WEBSOCKET_LIMITS.maxFrameBytes, () => ws.close(MESSAGE_TOO_BIG, 'Frame too big')),
        );
        ws.on('error', (err: Error & { code?: string }) =>
          log.info('local push gateway: a client broke the protocol; its connection is closed', { code: err.code }),
        );
        const now = new Date();
        open.set(connectionId, {
          socket: ws,
          connectedAt: now,
          lastActiveAt: now,
          sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
          window: { start: now.getTime(), count: 0 },
        });
        ws.on('message', (data, isBinary) => {
          // What arrives after the close began (the rest of a frame over the limit) is not a message.
          const connection = open.get(connectionId);
          if (!connection || ws.readyState !== ws.OPEN) return;
          connection.lastActiveAt = new Date();
          const verdict = messageVerdict(connection, connection.lastActiveAt.getTime());
          if (verdict.kind === 'refused' || verdict.kind === 'close') ws.send(JSON.stringify(errorBody(verdict.error)));
          if (verdict.kind === 'close') ws.close(POLICY_VIOLATION, 'Message rate exceeded');
          if (verdict.kind !== 'ok') return;
          const body = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
          invoke('$default', {
            requestContext: context(connectionId, '$default', 'MESSAGE'),
            body: isBinary ? body.toString('base64') : body.toString('utf8'),
            isBase64Encoded: isBinary,
          }).catch((err: Error) => log.error('local push gateway: $default failed', { error: err.message }));
        });
        ws.on('close', () => {
          open.delete(connectionId);
          disconnect(connectionId);
        });
      });
    })().catch((err: unknown) => {
      // Whatever escapes the handshake is this gateway's fault, never the client's: said, and the connection dropped.
      log.error('local push gateway: a handshake failed', { error: String(err) });
      socket.destroy();
    });
  });
  server.on('close', () => {
    for (const { socket } of open.values()) socket.terminate();
  });

  const answer = (res: ServerResponse, status: number, body?: unknown, errorType?: string) => {
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
    });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };

  return {
    handleConnectionsApi(req, res) {
      const match = CONNECTIONS_PATH.exec(requestUrl(req)?.pathname ?? '');
      if (!match) return false;
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256 '))
          return answer(res, 403, { message: 'Missing Authentication Token' }, 'ForbiddenException');
        const connection = open.get(decodedId(match[1]!));
        if (!connection) return answer(res, 410, { message: 'Gone' }, 'GoneException');
        if (req.method === 'POST') {
          connection.socket.send(Buffer.concat(chunks).toString('utf8'), (err) =>
            err ? answer(res, 410, { message: 'Gone' }, 'GoneException') : answer(res, 200),
          );
        } else if (req.method === 'DELETE') {
          connection.socket.close(1000);
          answer(res, 204);
        } else if (req.method === 'GET') {
          answer(res, 200, {
            ConnectedAt: connection.connectedAt.toISOString(),
            LastActiveAt: connection.lastActiveAt.toISOString(),
            Identity: { SourceIp: connection.sourceIp },
          });
        } else answer(res, 405, { message: 'Method Not Allowed' });
      });
      return true;
    },
  };
}

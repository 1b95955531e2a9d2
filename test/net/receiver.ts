import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { closeAfterTest } from '../support/close-after-test.ts';

/** A real HTTP server on 127.0.0.1 standing in for a webhook endpoint; it records what it received. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Respond = (req: ReceivedRequest, res: http.ServerResponse) => void | Promise<void>;

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** TCP connections accepted so far (keep-alive reuse shows as fewer connections than requests). */
  connections: () => number;
  close(): Promise<void>;
}

/** `tls`: an https receiver with that key and certificate (fixtures/tls-fixture.ts); `connections` then counts handshakes. */
export async function startReceiver(
  respond: Respond,
  options: { tls?: { key: string; cert: string } } = {},
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      void Promise.resolve(respond(received, res)).catch(() => res.destroy());
    });
  };
  const server = options.tls ? https.createServer(options.tls, handle) : http.createServer(handle);
  let connections = 0;
  server.on(options.tls ? 'secureConnection' : 'connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  closeAfterTest(close);
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/webhook`,
    port,
    requests,
    connections: () => connections,
    close,
  };
}

/** The reply docs/api.md asks for: 200, JSON, the challenge echoed. */
export function echoChallenge(req: ReceivedRequest, res: http.ServerResponse): void {
  json(res, 200, { challenge: (JSON.parse(req.body) as { challenge: string }).challenge });
}

export function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A port with nothing listening on it (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A raw TCP listener that only counts connections (and closes them): proves where a socket went. */
export async function startTcpCounter(): Promise<{ port: number; connections: () => number }> {
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closeAfterTest(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as net.AddressInfo).port, connections: () => count };
}

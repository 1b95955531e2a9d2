/**
 * The smoke run's webhook endpoint: answers the verification handshake and keeps every contract
 * event whose signature the client library's `verifyWebhook` accepts. A request it cannot verify is
 * answered 401 and counted, so a wrong secret or a broken signer shows as such in the run's failure.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentEvent, type TestEvent, verifyWebhook, WebhookVerificationError } from '../../client/index.ts';

/** What the service delivers besides the handshake: a contract or template event, or a test event. */
export type DeliveredEvent = AgentEvent | TestEvent;

export interface SmokeReceiver {
  /** The port it listens on, on 127.0.0.1. */
  port: number;
  /** Read on every request: the webhook's secret is known only once the webhook is configured. */
  secret: string;
  challenges: number;
  refused: string[];
  events: DeliveredEvent[];
  /** Resolves with the first verified event that `match` accepts. */
  waitFor(match: (event: DeliveredEvent) => boolean, signal: AbortSignal): Promise<DeliveredEvent>;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startSmokeReceiver(port: number): Promise<SmokeReceiver> {
  const waiters = new Set<() => void>();
  const receiver: SmokeReceiver = {
    port,
    secret: '',
    challenges: 0,
    refused: [],
    events: [],
    waitFor: (match, signal) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = receiver.events.find(match);
          if (found) {
            waiters.delete(check);
            resolve(found);
          } else if (signal.aborted) {
            waiters.delete(check);
            reject(signal.reason);
          }
        };
        waiters.add(check);
        signal.addEventListener('abort', check, { once: true });
        check();
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server: Server = createServer((req, res) => {
    readBody(req)
      .then(async (rawBody) => {
        if (!receiver.secret) return answer(res, 503, { error: 'not configured yet' });
        let payload: Awaited<ReturnType<typeof verifyWebhook>>;
        try {
          payload = await verifyWebhook({ secret: receiver.secret, headers: req.headers, rawBody });
        } catch (err) {
          if (!(err instanceof WebhookVerificationError)) throw err;
          receiver.refused.push(err.code);
          return answer(res, 401, { error: err.code });
        }
        if (payload.type === 'service.webhook.verify') {
          receiver.challenges++;
          return answer(res, 200, { challenge: payload.challenge });
        }
        if (!receiver.events.some((e) => e.id === payload.id)) receiver.events.push(payload);
        for (const waiter of waiters) waiter();
        answer(res, 200, { received: true });
      })
      .catch(() => {
        if (!res.headersSent) answer(res, 500, { error: 'receiver failed' });
      });
  });
  server.requestTimeout = 15_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}

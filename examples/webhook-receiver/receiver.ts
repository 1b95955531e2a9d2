import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '@template-marketplace/client';
import { readRawBody, sendJson } from './http-io.ts';
import { InMemorySeenEvents, type SeenEvents } from './seen-events.ts';

export const VERIFY_EVENT = 'service.webhook.verify';

/** A contract event as the service delivers it. */
export interface WebhookEvent {
  id: string;
  type: string;
  created_at: string;
  agent_id: string;
  data: { contract_id: string; [field: string]: unknown };
}

export interface ReceiverOptions {
  /**
   * The agent's webhook secret (`whsec_…`), or several while a rotation settles (any may match).
   * A function is read on every request, so a rotated secret can be swapped in without a restart.
   */
  secret: string | readonly string[] | (() => string | readonly string[]);
  /** Your code. Throw to answer 500, and the service will deliver the event again later. */
  onEvent: (event: WebhookEvent) => void | Promise<void>;
  /** Default: in memory. */
  seen?: SeenEvents;
  /** Allowed clock skew of `x-service-timestamp`; default 300 s. */
  toleranceSeconds?: number;
  /**
   * The service gives up on an answer after 10 s. If `onEvent` takes longer than this, answer
   * 503 (so the event is delivered again) while it carries on; a finished event is then
   * recognised as a duplicate. Default 8 000 ms. Better still: make `onEvent` just enqueue.
   */
  handlerDeadlineMs?: number;
  /** Default 1 MiB. */
  maxBodyBytes?: number;
}

class HandlerDeadline extends Error {}

/**
 * A webhook endpoint for one agent: answers the verification handshake, checks every request's
 * signature, drops duplicates, and hands each new event to `onEvent` once.
 * Returns an unstarted server: `createReceiver(…).listen(port)`.
 */
export function createReceiver(options: ReceiverOptions): Server {
  const seen = options.seen ?? new InMemorySeenEvents();
  const deadlineMs = options.handlerDeadlineMs ?? 8_000;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  // Concurrent copies of one event wait for the first instead of running onEvent twice.
  const inFlight = new Map<string, Promise<unknown>>();

  function handleOnce(event: WebhookEvent): Promise<'handled' | 'duplicate'> {
    const running = inFlight.get(event.id);
    if (running) return running.then(() => 'duplicate');
    // Registered before the first await, so no concurrent copy can slip past the check.
    const run = (async () => {
      if (await seen.has(event.id)) return 'duplicate' as const;
      await options.onEvent(event);
      await seen.add(event.id);
      return 'handled' as const;
    })().finally(() => inFlight.delete(event.id));
    inFlight.set(event.id, run);
    return run;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'Only POST is accepted.' }, { allow: 'POST' });
    const rawBody = await readRawBody(req, maxBodyBytes);
    if (rawBody === 'too_large')
      return sendJson(res, 413, { error: 'The body is too large.' }, { connection: 'close' });

    const secret = typeof options.secret === 'function' ? options.secret() : options.secret;
    let body: Record<string, unknown>;
    try {
      // The client package's check: both signatures, timing-safe, the timestamp within the tolerance.
      body = (await verifyWebhook({
        secret,
        headers: req.headers,
        rawBody,
        toleranceSeconds: options.toleranceSeconds,
      })) as unknown as Record<string, unknown>;
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      return sendJson(res, err.code === 'invalid_body' ? 400 : 401, { error: err.message });
    }

    if (header(req, 'x-service-event') === VERIFY_EVENT || body['type'] === VERIFY_EVENT) {
      // The service compares the token as a string: echo the parsed value untouched, never decoded or escaped further.
      if (typeof body['challenge'] !== 'string')
        return sendJson(res, 400, { error: 'The handshake has no challenge.' });
      return sendJson(res, 200, { challenge: body['challenge'] });
    }

    const eventId = header(req, 'x-service-event-id') ?? body['id'];
    if (typeof eventId !== 'string' || eventId === '') return sendJson(res, 400, { error: 'The event has no id.' });
    const event = { ...body, id: eventId } as unknown as WebhookEvent;

    let outcome: 'handled' | 'duplicate';
    try {
      outcome = await withDeadline(handleOnce(event), deadlineMs);
    } catch (err) {
      if (err instanceof HandlerDeadline)
        return sendJson(res, 503, { error: 'Still processing; deliver again later.' });
      console.error(`webhook ${eventId}: onEvent failed:`, err);
      return sendJson(res, 500, { error: 'The event could not be processed.' });
    }
    return sendJson(res, 200, outcome === 'duplicate' ? { received: true, duplicate: true } : { received: true });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      console.error('webhook receiver failed:', err);
      if (!res.headersSent) sendJson(res, 500, { error: 'Internal error.' });
      else res.destroy();
    });
  });
  // Cut off clients that trickle a request in; the service sends its whole request at once.
  server.requestTimeout = 15_000;
  return server;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HandlerDeadline()), ms);
  });
  // A late failure is reported by the retry that follows; don't let it go unhandled meanwhile.
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

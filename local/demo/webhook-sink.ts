/**
 * The demo agents' webhook endpoint under `npm start` (development mode only): it answers the
 * verification handshake and takes every delivery with 204, so the verify sample and the event
 * pipeline have somewhere real to talk to. It checks no signature: it is a sink for demo data, not
 * an example receiver (that is examples/webhook-receiver).
 */
import { createServer, type Server } from 'node:http';
import { VERIFY_EVENT_TYPE } from '../../lib/webhooks/handshake.ts';
import { listen } from '../gateway/api-gateway.ts';

const MAX_BODY = 256 * 1024;

export async function startDemoWebhookSink(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    let body = '';
    try {
      for await (const chunk of req) {
        body += String(chunk);
        if (body.length > MAX_BODY) return void res.writeHead(413).end();
      }
    } catch {
      // The client went away mid-body (the request is 'aborted'): nobody to answer, and the
      // rejection of this async listener must not end the process.
      return;
    }
    let parsed: { type?: unknown; challenge?: unknown } = {};
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      // not JSON: taken like any delivery
    }
    if (req.method === 'POST' && parsed.type === VERIFY_EVENT_TYPE && typeof parsed.challenge === 'string') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: parsed.challenge }));
      return;
    }
    res.writeHead(204).end();
  });
  const api = await listen(server, 0, '127.0.0.1');
  return { url: `${api.url}/webhook`, close: api.close };
}

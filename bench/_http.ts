/**
 * The benchmarks' own HTTP POSTs to their receivers. Every request and response has an error path,
 * and a failure names the request (`<what>: POST <url>: <code> <message>`), so a bench that fails
 * says which request did. Kept-alive sockets are dropped after IDLE_SOCKET_MS idle, below Node's
 * 5 s server keep-alive timeout: `npm run bench -- delivery` crashed with a bare `socket hang up`
 * when a round began on a socket its receiver had closed during the pause between rounds.
 */
import http from 'node:http';
import https from 'node:https';
import { IDLE_SOCKET_MS } from '../lib/net/connection-pool.ts';

/** A keep-alive agent whose idle sockets close before a Node receiver closes them. */
export const keepAliveAgent = (options: https.AgentOptions = {}, secure = false): http.Agent =>
  secure
    ? new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, ...options })
    : new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, ...options });

/** POSTs `body` to `url`; resolves on a 2xx, rejects with an error naming `what` and the request otherwise. */
export function post(what: string, url: string, body: string, agent: http.Agent | false): Promise<void> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const fail = (problem: string, cause?: unknown) =>
      reject(new Error(`${what}: POST ${url}: ${problem}`, cause === undefined ? undefined : { cause }));
    const req = client.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        res.on('error', (err) => fail(`${(err as NodeJS.ErrnoException).code ?? ''} ${err.message}`.trim(), err));
        res.resume();
        res.on('end', () =>
          res.statusCode !== undefined && res.statusCode < 300 ? resolve() : fail(`HTTP ${res.statusCode}`),
        );
      },
    );
    req.on('error', (err) => fail(`${(err as NodeJS.ErrnoException).code ?? ''} ${err.message}`.trim(), err));
    req.end(body);
  });
}

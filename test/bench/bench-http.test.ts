import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { keepAliveAgent, post } from '../../bench/_http.ts';
import { IDLE_SOCKET_MS } from '../../lib/net/connection-pool.ts';

/** The benchmarks' POSTs against real receivers on 127.0.0.1 (bench/_http.ts). */
const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function receiver(handle: http.RequestListener, keepAliveTimeout = 5000): Promise<string> {
  const server = http.createServer(handle);
  server.keepAliveTimeout = keepAliveTimeout;
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

describe('bench POSTs', () => {
  it('reject, naming the request, when the receiver hangs up without an answer (no uncaught error)', async () => {
    const url = await receiver((req) => req.socket.destroy());
    await expect(post('floor loop, delivery dlv_1', url, '{}', false)).rejects.toThrow(
      `floor loop, delivery dlv_1: POST ${url}: ECONNRESET socket hang up`,
    );
  });

  it('reject, naming the request, on a non-2xx answer', async () => {
    const url = await receiver((_req, res) => res.writeHead(500).end());
    await expect(post('a bench request', url, '{}', false)).rejects.toThrow(`a bench request: POST ${url}: HTTP 500`);
  });

  it('drop a kept-alive socket before a Node receiver (5 s) closes it, so a pause never meets a closed socket', async () => {
    expect(IDLE_SOCKET_MS).toBeLessThan(5000);
    const sockets = new Set<Socket>();
    // A Node receiver (keep-alive timeout 5 s); the pause ends after the agent's idle limit and
    // before the receiver's, when the old socket is still open and an agent without the limit reuses it.
    const url = await receiver((req, res) => {
      sockets.add(req.socket);
      req.resume();
      req.on('end', () => res.writeHead(200).end());
    }, 5000);
    const agent = keepAliveAgent();
    await post('first', url, '{}', agent);
    await new Promise((resolve) => setTimeout(resolve, IDLE_SOCKET_MS + 500));
    await post('after the pause', url, '{}', agent);
    // A new connection: the agent dropped the idle one itself, before the receiver could close it under a request.
    expect(sockets.size).toBe(2);
    agent.destroy();
  }, 20_000);
});

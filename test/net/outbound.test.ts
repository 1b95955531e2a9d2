import { once } from 'node:events';
import type net from 'node:net';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES, postJson } from '../../lib/net/outbound.ts';
import type { Resolver } from '../../lib/net/resolver.ts';
import { closedPort, json, startReceiver, startTcpCounter } from './receiver.ts';

const dev = { developmentMode: true };

/** DNS we can script: a fixed answer per call, counting the calls. */
function scriptedResolver(...answers: string[][]): Resolver & { calls: number } {
  const resolver = Object.assign(
    async (_hostname: string) => {
      const answer = answers[Math.min(resolver.calls, answers.length - 1)]!;
      resolver.calls++;
      return answer.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
    },
    { calls: 0 },
  );
  return resolver;
}

describe('postJson against real local servers', () => {
  it('posts the body with the given headers and returns status, headers and body', async () => {
    const receiver = await startReceiver((_req, res) => json(res, 202, { received: true }));
    const result = await postJson(
      { url: receiver.url, body: '{"a":1}', headers: { 'X-Service-Event': 'contract.funded' } },
      dev,
    );
    expect(result).toMatchObject({ kind: 'response', status: 202, body: '{"received":true}' });
    expect(result.kind === 'response' && result.headers['content-type']).toBe('application/json');
    const [req] = receiver.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/webhook', body: '{"a":1}' });
    expect(req!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-event': 'contract.funded',
      'content-length': '7',
    });
    expect(req!.headers['user-agent']).toMatch(/^TemplateMarketplace-Webhooks\//);
  });

  it('returns a redirect as it is and never follows it', async () => {
    const target = await startReceiver((_req, res) => json(res, 200, {}));
    const redirecting = await startReceiver((_req, res) => {
      res.writeHead(307, { location: target.url });
      res.end();
    });
    const result = await postJson({ url: redirecting.url, body: '{}', headers: {} }, dev);
    expect(result).toMatchObject({ kind: 'response', status: 307 });
    expect(target.requests).toHaveLength(0);
  });

  it('times out a silent endpoint at the deadline', async () => {
    const receiver = await startReceiver(() => undefined);
    const started = Date.now();
    expect(await postJson({ url: receiver.url, body: '{}', headers: {}, deadlineMs: 400 }, dev)).toEqual({
      kind: 'timeout',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('counts the response body inside the deadline (headers first, then a trickle)', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"challenge":');
    });
    expect(await postJson({ url: receiver.url, body: '{}', headers: {}, deadlineMs: 400 }, dev)).toEqual({
      kind: 'timeout',
    });
  });

  it('caps the response body it reads', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(MAX_RESPONSE_BYTES * 3));
    });
    const result = await postJson({ url: receiver.url, body: '{}', headers: {} }, dev);
    expect(result).toMatchObject({ kind: 'response', status: 200, truncated: true });
    expect(result.kind === 'response' && result.body.length).toBe(MAX_RESPONSE_BYTES);
  });

  it('reports a refused connection as a network error', async () => {
    const port = await closedPort();
    const result = await postJson({ url: `http://127.0.0.1:${port}/webhook`, body: '{}', headers: {} }, dev);
    expect(result).toMatchObject({ kind: 'network_error', message: expect.stringContaining('ECONNREFUSED') });
  });

  it('reports a name that does not resolve as a network error', async () => {
    const resolver: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example.com'), { code: 'ENOTFOUND' });
    };
    const result = await postJson(
      { url: 'https://nowhere.example.com/webhook', body: '{}', headers: {} },
      { ...dev, resolver },
    );
    expect(result).toMatchObject({ kind: 'network_error', message: expect.stringContaining('ENOTFOUND') });
  });
});

describe('URL policy at connect time', () => {
  it('blocks loopback outside development mode, before any connection', async () => {
    const counter = await startTcpCounter();
    const direct = await postJson(
      { url: `http://127.0.0.1:${counter.port}/`, body: '{}', headers: {} },
      { developmentMode: false },
    );
    expect(direct).toMatchObject({ kind: 'blocked' });
    const viaName = await postJson(
      { url: `https://hooks.example.com:${counter.port}/`, body: '{}', headers: {} },
      { developmentMode: false, resolver: scriptedResolver(['127.0.0.1']) },
    );
    expect(viaName).toMatchObject({ kind: 'blocked', reason: expect.stringContaining('127.0.0.1') });
    expect(counter.connections()).toBe(0);
  });

  it('blocks a name that resolves to a private address', async () => {
    for (const address of ['10.0.0.7', '169.254.169.254', '192.168.1.20', 'fd00::1', '::ffff:10.0.0.1']) {
      const result = await postJson(
        { url: 'https://hooks.example.com/webhook', body: '{}', headers: {} },
        { developmentMode: false, resolver: scriptedResolver([address]) },
      );
      expect(result, address).toMatchObject({ kind: 'blocked' });
    }
  });

  it('checks every address of the answer, not only the first', async () => {
    const counter = await startTcpCounter();
    const result = await postJson(
      { url: `https://hooks.example.com:${counter.port}/`, body: '{}', headers: {} },
      { ...dev, resolver: scriptedResolver(['127.0.0.1', '10.0.0.1']) },
    );
    expect(result).toMatchObject({ kind: 'blocked', reason: expect.stringContaining('10.0.0.1') });
    expect(counter.connections()).toBe(0);
  });

  it('resolves once and connects only to the checked address (DNS rebinding)', async () => {
    // First answer allowed (loopback, development mode), every later answer private: a client
    // that resolved again at connect time would try 10.0.0.1 and never reach the counter.
    const counter = await startTcpCounter();
    const resolver = scriptedResolver(['127.0.0.1'], ['10.0.0.1']);
    const result = await postJson(
      { url: `https://rebind.example.com:${counter.port}/`, body: '{}', headers: {} },
      { ...dev, resolver },
    );
    expect(result.kind).toBe('network_error'); // the counter hangs up: what matters is where the socket went
    expect(resolver.calls).toBe(1);
    expect(counter.connections()).toBe(1);
  });

  it('keeps the hostname for TLS (SNI and certificate check) while connecting to the checked address', async () => {
    const server = tls.createServer({
      SNICallback: (servername, callback) => {
        seen.push(servername);
        callback(new Error('no certificate here'));
      },
    });
    const seen: string[] = [];
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const port = (server.address() as net.AddressInfo).port;
      await postJson(
        { url: `https://hooks.example.com:${port}/`, body: '{}', headers: {} },
        { ...dev, resolver: scriptedResolver(['127.0.0.1']) },
      );
      expect(seen).toEqual(['hooks.example.com']);
    } finally {
      server.close();
    }
  });
});

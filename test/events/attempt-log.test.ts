import { once } from 'node:events';
import https from 'node:https';
import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_TLS_CERT, TEST_TLS_KEY } from '../../fixtures/tls-fixture.ts';
import {
  attemptEntry,
  attemptError,
  attemptList,
  attemptLogKey,
  RESPONSE_BODY_BYTES,
  responseBodyHead,
} from '../../lib/events/delivery/attempt-history.ts';
import { type OutboundRequest, postJson } from '../../lib/net/outbound.ts';
import type { Resolver } from '../../lib/net/resolver.ts';
import { closedPort, json, startReceiver } from '../net/receiver.ts';

/**
 * The attempt history's error kinds, each produced by a real exchange with a local server (or the
 * URL policy refusing one), through the same postJson the delivery worker uses.
 */
const dev = { developmentMode: true };
const post = (url: string, extra: Partial<OutboundRequest> = {}) =>
  postJson({ url, body: '{}', headers: {}, ...extra }, dev);

const servers: net.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

describe('attempt error kinds from real exchanges', () => {
  it('2xx: no error; the answer is kept', async () => {
    const receiver = await startReceiver((_req, res) => json(res, 200, { ok: true }));
    const started = Date.now();
    const entry = attemptEntry(started, 12.4, await post(receiver.url));
    expect(entry).toEqual({
      started_at: new Date(started).toISOString(),
      duration_ms: 12,
      status_code: 200,
      error: null,
      response_body: '{"ok":true}',
    });
  });

  it('non-2xx: http_status; 3xx: redirect', async () => {
    const failing = await startReceiver((_req, res) => json(res, 503, { busy: true }));
    const redirecting = await startReceiver((_req, res) => {
      res.writeHead(301, { location: 'https://elsewhere.example.com/' }).end();
    });
    expect(attemptEntry(0, 1, await post(failing.url))).toMatchObject({
      status_code: 503,
      error: 'http_status',
      response_body: '{"busy":true}',
    });
    expect(attemptEntry(0, 1, await post(redirecting.url))).toMatchObject({
      status_code: 301,
      error: 'redirect',
      response_body: '',
    });
  });

  it('connection_refused, timeout, dns, url_policy: no status, no body', async () => {
    const silent = await startReceiver(() => undefined);
    const noName: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example.com'), { code: 'ENOTFOUND' });
    };
    const cases = [
      [await post(`http://127.0.0.1:${await closedPort()}/`), 'connection_refused'],
      [await post(silent.url, { deadlineMs: 300 }), 'timeout'],
      [
        await postJson({ url: 'https://nowhere.example.com/', body: '{}', headers: {} }, { ...dev, resolver: noName }),
        'dns',
      ],
      [await postJson({ url: silent.url, body: '{}', headers: {} }, { developmentMode: false }), 'url_policy'],
    ] as const;
    for (const [result, kind] of cases) {
      expect(attemptEntry(0, 1, result), kind).toMatchObject({ status_code: null, error: kind, response_body: null });
    }
  });

  it('a certificate the client does not trust: tls', async () => {
    const server = https.createServer({ key: TEST_TLS_KEY, cert: TEST_TLS_CERT }, (_req, res) => res.end('{}'));
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const result = await post(`https://127.0.0.1:${(server.address() as net.AddressInfo).port}/`);
    expect(attemptError(result)).toBe('tls');
  });

  it('a connection cut mid-answer: connection_reset', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"par');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    expect(attemptError(await post(receiver.url))).toBe('connection_reset');
  });
});

describe('response body kept in the history', () => {
  it('keeps the first 1 KiB, never splitting a character', () => {
    expect(responseBodyHead('a'.repeat(RESPONSE_BODY_BYTES))).toBe('a'.repeat(RESPONSE_BODY_BYTES));
    expect(responseBodyHead('a'.repeat(RESPONSE_BODY_BYTES + 1))).toBe('a'.repeat(RESPONSE_BODY_BYTES));
    // 'é' is 2 bytes: 1023 bytes of 'a' then 'é' would cross the limit, so the 'é' is left out.
    expect(responseBodyHead(`${'a'.repeat(RESPONSE_BODY_BYTES - 1)}é`)).toBe('a'.repeat(RESPONSE_BODY_BYTES - 1));
    const cut = responseBodyHead('€'.repeat(1000));
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(RESPONSE_BODY_BYTES);
    expect(cut).toBe('€'.repeat(Math.floor(RESPONSE_BODY_BYTES / 3)));
  });

  it('lists a stored history oldest first, whatever the map order', () => {
    const entry = (attempt: number) => ({
      attempt,
      started_at: '',
      duration_ms: 0,
      status_code: 500,
      error: 'http_status' as const,
      response_body: '',
    });
    const stored = { [attemptLogKey(10)]: entry(10), [attemptLogKey(2)]: entry(2), [attemptLogKey(9)]: entry(9) };
    expect(attemptList(stored).map((e) => e.attempt)).toEqual([2, 9, 10]);
    expect(
      Object.keys(
        attemptList({
          [attemptLogKey(1)]: {
            response_body: null,
            error: null,
            status_code: 200,
            duration_ms: 1,
            started_at: '',
            attempt: 1,
          },
        })[0]!,
      ),
    ).toEqual(['attempt', 'started_at', 'duration_ms', 'status_code', 'error', 'response_body']);
    expect(attemptList(undefined)).toEqual([]);
  });
});

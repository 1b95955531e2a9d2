import { afterEach, describe, expect, it } from 'vitest';
import { TEST_TLS_CERT, TEST_TLS_KEY } from '../../fixtures/tls-fixture.ts';
import { attemptError } from '../../lib/events/delivery/attempt-history.ts';
import { closeAllPools } from '../../lib/net/connection-pool.ts';
import { postJson } from '../../lib/net/outbound.ts';
import type { Resolver } from '../../lib/net/resolver.ts';
import { json, startReceiver } from './receiver.ts';

/**
 * Keep-alive pools per checked address (lib/net/connection-pool.ts) against real local servers:
 * reuse happens, and never at the cost of the URL policy. DNS is scripted through the resolver hook (plain http is allowed for `localhost` in development mode);
 * the sockets are real.
 */
const dev = { developmentMode: true };

/** DNS whose answer the test changes between requests. */
function switchableResolver(initial: string[]): Resolver & { answer: string[] } {
  const resolver = Object.assign(
    async () =>
      resolver.answer.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) })),
    { answer: initial },
  );
  return resolver;
}

afterEach(() => closeAllPools());

describe('connection reuse per checked address', () => {
  it('sequential posts to one name share one connection', async () => {
    const receiver = await startReceiver((_req, res) => json(res, 200, {}));
    const resolver = switchableResolver(['127.0.0.1']);
    for (let i = 0; i < 3; i++) {
      expect(
        await postJson({ url: `http://localhost:${receiver.port}/`, body: '{}', headers: {} }, { ...dev, resolver }),
      ).toMatchObject({ status: 200 });
    }
    expect(receiver.requests).toHaveLength(3);
    expect(receiver.connections()).toBe(1);
  });

  it('a DNS change to a forbidden address never reaches the pooled socket', async () => {
    const receiver = await startReceiver((_req, res) => json(res, 200, {}));
    const resolver = switchableResolver(['127.0.0.1']);
    const post = (options = {}) =>
      postJson(
        { url: `http://localhost:${receiver.port}/`, body: '{}', headers: {} },
        { ...dev, resolver, ...options },
      );
    expect(await post()).toMatchObject({ status: 200 }); // a warm socket to 127.0.0.1 is now pooled

    for (const answer of [['10.0.0.1'], ['169.254.169.254'], ['127.0.0.1', '10.0.0.1'], ['10.0.0.1', '127.0.0.1']]) {
      resolver.answer = answer;
      const result = await post();
      expect(result, answer.join()).toMatchObject({ kind: 'blocked' });
      expect(attemptError(result)).toBe('url_policy');
    }
    // The same address, but the policy no longer allows it (development mode off): refused too.
    resolver.answer = ['127.0.0.1'];
    expect(await post({ developmentMode: false })).toMatchObject({ kind: 'blocked' });
    expect(receiver.requests).toHaveLength(1);

    // Back to the allowed answer: the pooled socket is used again.
    expect(await post()).toMatchObject({ status: 200 });
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.connections()).toBe(1);
  });

  it('a reset on a reused socket is an ordinary failed attempt; the next one connects afresh', async () => {
    let n = 0;
    const receiver = await startReceiver((_req, res) => {
      n++;
      if (n === 2) res.socket?.destroy();
      else json(res, 200, {});
    });
    const resolver = switchableResolver(['127.0.0.1']);
    const post = () =>
      postJson({ url: `http://localhost:${receiver.port}/`, body: '{}', headers: {} }, { ...dev, resolver });
    expect(await post()).toMatchObject({ status: 200 });
    const reset = await post();
    expect(reset.kind).toBe('network_error');
    expect(attemptError(reset)).toBe('connection_reset');
    expect(await post()).toMatchObject({ status: 200 });
    expect(receiver.connections()).toBe(2);
  });

  it('a local TLS receiver (self-signed, trusted here): one handshake for many posts; without reuse one per post', async () => {
    const receiver = await startReceiver((_req, res) => json(res, 200, {}), {
      tls: { key: TEST_TLS_KEY, cert: TEST_TLS_CERT },
    });
    const url = `https://hooks.example.com:${receiver.port}/`;
    const counts = () => [receiver.requests.length, receiver.connections()];
    const resolver = switchableResolver(['127.0.0.1']);
    for (let i = 0; i < 4; i++)
      expect(await postJson({ url, body: '{}', headers: {} }, { ...dev, resolver, ca: TEST_TLS_CERT })).toMatchObject({
        status: 200,
      });
    expect(counts()).toEqual([4, 1]);
    for (let i = 0; i < 3; i++) {
      expect(
        await postJson(
          { url, body: '{}', headers: {} },
          { ...dev, resolver, ca: TEST_TLS_CERT, reuseConnections: false },
        ),
      ).toMatchObject({ status: 200 });
    }
    expect(counts()).toEqual([7, 4]);
    // The certificate is still checked against the name: untrusted without the test's CA.
    expect(attemptError(await postJson({ url, body: '{}', headers: {} }, { ...dev, resolver }))).toBe('tls');
  });
});

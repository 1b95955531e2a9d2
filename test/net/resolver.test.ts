import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LocalDnsServer, startDnsServer } from '../../fixtures/dns-server.ts';
import { TEST_TLS_CERT, TEST_TLS_KEY } from '../../fixtures/tls-fixture.ts';
import { closeAllPools } from '../../lib/net/connection-pool.ts';
import { postJson } from '../../lib/net/outbound.ts';
import { dnsResolver, MAX_CACHE_SECONDS } from '../../lib/net/resolver.ts';
import { json, startReceiver } from './receiver.ts';

/**
 * The outbound resolver against a real DNS server on 127.0.0.1: answers are reused for their TTL
 * (at most MAX_CACHE_SECONDS), never longer, and every address is still checked on every request.
 * The clock is injected so expiry needs no waiting.
 */
let dns: LocalDnsServer;
let clock = 0;
const now = () => clock;

beforeAll(async () => {
  dns = await startDnsServer();
});
afterAll(() => dns.stop());
afterEach(() => closeAllPools());

const v4 = (address: string) => [{ address, family: 4 }];

describe('the caching DNS resolver', () => {
  it('asks DNS once per TTL, and again once it has run out', async () => {
    const resolve = dnsResolver({ servers: [dns.server], now });
    dns.set('ttl30.example', { addresses: ['192.0.2.10'], ttl: 30 });
    expect(await resolve('ttl30.example')).toEqual(v4('192.0.2.10'));
    const asked = dns.queries('ttl30.example');
    expect(asked).toBe(2); // A and AAAA
    clock += 29_000;
    expect(await resolve('TTL30.example')).toEqual(v4('192.0.2.10'));
    expect(dns.queries('ttl30.example')).toBe(asked);
    dns.set('ttl30.example', { addresses: ['192.0.2.11', '2001:db8::1'], ttl: 30 });
    clock += 1_001;
    expect(await resolve('ttl30.example')).toEqual([...v4('192.0.2.11'), { address: '2001:db8::1', family: 6 }]);
    expect(dns.queries('ttl30.example')).toBe(asked + 2);
  });

  it('asks every time for TTL 0, and caps a long TTL', async () => {
    const resolve = dnsResolver({ servers: [dns.server], now });
    dns.set('ttl0.example', { addresses: ['192.0.2.20'], ttl: 0 });
    await resolve('ttl0.example');
    await resolve('ttl0.example');
    expect(dns.queries('ttl0.example')).toBe(4);

    dns.set('day.example', { addresses: ['192.0.2.30'], ttl: 86_400 });
    await resolve('day.example');
    clock += MAX_CACHE_SECONDS * 1000 + 1;
    await resolve('day.example');
    expect(dns.queries('day.example')).toBe(4);
  });

  it('shares one lookup among concurrent requests for a name, and keeps at most 16 addresses of an answer', async () => {
    const resolve = dnsResolver({ servers: [dns.server], now });
    const many = Array.from({ length: 20 }, (_, i) => `192.0.2.${100 + i}`);
    dns.set('many.example', { addresses: many, ttl: 30 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => resolve('many.example')));
    expect(dns.queries('many.example')).toBe(2);
    expect(answers.every((a) => a === answers[0])).toBe(true);
    expect(answers[0]!.map((a) => a.address)).toEqual(many.slice(0, 16));
    expect(() => (answers[0] as Array<unknown>).push({})).toThrow();
  });

  it('does not keep an answer DNS failed to give in full (one family SERVFAIL)', async () => {
    const resolve = dnsResolver({ servers: [dns.server], now });
    dns.set('flaky.example', { addresses: ['192.0.2.40', '2001:db8::40'], ttl: 30, failAaaa: true });
    // Handed to getaddrinfo, whose answer (if any) depends on this machine: only the caching is checked.
    await resolve('flaky.example').catch(() => undefined);
    dns.set('flaky.example', { addresses: ['192.0.2.40', '2001:db8::40'], ttl: 30 });
    expect(await resolve('flaky.example')).toEqual([...v4('192.0.2.40'), { address: '2001:db8::40', family: 6 }]);
    expect(dns.queries('flaky.example')).toBe(4);
  });

  it('never asks DNS for localhost', async () => {
    const resolve = dnsResolver({ servers: [dns.server], now });
    const answer = await resolve('localhost');
    expect(answer.length).toBeGreaterThan(0);
    expect(answer.every((a) => a.address === '127.0.0.1' || a.address === '::1')).toBe(true);
    expect(dns.queries('localhost')).toBe(0);
  });
});

describe('a cached answer and the URL policy', () => {
  it('within the TTL posts keep going to the checked address; once it runs out a forbidden answer is refused', async () => {
    const receiver = await startReceiver((_req, res) => json(res, 200, {}), {
      tls: { key: TEST_TLS_KEY, cert: TEST_TLS_CERT },
    });
    const resolver = dnsResolver({ servers: [dns.server], now });
    dns.set('hooks.example.com', { addresses: ['127.0.0.1'], ttl: 5 });
    const post = () =>
      postJson(
        { url: `https://hooks.example.com:${receiver.port}/`, body: '{}', headers: {} },
        { developmentMode: true, ca: TEST_TLS_CERT, resolver },
      );
    expect(await post()).toMatchObject({ status: 200 });

    dns.set('hooks.example.com', { addresses: ['10.0.0.1'], ttl: 5 });
    clock += 4_000;
    // Still the answer DNS gave for these 5 s: the checked loopback address, never 10.0.0.1.
    expect(await post()).toMatchObject({ status: 200 });
    clock += 1_001;
    expect(await post()).toMatchObject({ kind: 'blocked', reason: expect.stringContaining('10.0.0.1') });
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.connections()).toBe(1);
  });
});

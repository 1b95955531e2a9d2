/**
 * Name → every address it resolves to, for the URL policy's check at connect time
 * (lib/net/outbound.ts checks every address of every answer, cached or not).
 *
 * DNS is asked directly (c-ares: A and AAAA in the event loop, with each record's TTL) and the
 * answer is kept for its smallest TTL, at most MAX_CACHE_SECONDS. That is as fresh as the system
 * resolver can be: the resolver a Lambda function asks caches by the same TTLs, so a lookup per
 * POST bought nothing but a round trip and a thread-pool hop per delivery. A record with TTL 0 (the
 * rebinding trick) is asked again on every request. `localhost`, names DNS has no records for (a
 * search-domain name, a hosts-file entry) and answers DNS failed to give in full (a timeout on one
 * family) go to getaddrinfo, as before, and are never cached: it gives no TTL.
 */
import { promises as dns } from 'node:dns';

/** Every address a name resolves to. Outbound callers may pass their own resolver (tests script DNS with it). */
type Answer = ReadonlyArray<Readonly<{ address: string; family: 4 | 6 }>>;
export type Resolver = (hostname: string) => Promise<Answer>;

/** The longest an answer is reused, whatever its TTL says. */
export const MAX_CACHE_SECONDS = 60;
/** Names remembered; the oldest entry goes first beyond it. */
const MAX_CACHED_NAMES = 1000;
/** Addresses kept of one answer (a TCP answer can hold thousands; only checked ones are ever used). */
const MAX_ADDRESSES = 16;
/** Per query: c-ares' default (5 s, 4 tries) would eat the whole delivery deadline. */
const QUERY_TIMEOUT_MS = 2000;
const QUERY_TRIES = 2;

/** getaddrinfo: every address, in the order the system prefers. */
const lookupAll: Resolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, order: 'verbatim' });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** Errors that mean "DNS has no such record", as opposed to DNS failing to answer. */
const NO_RECORDS = new Set(['ENODATA', 'ENOTFOUND']);

/** A caching DNS resolver; `servers` (host:port) only where a test or benchmark runs its own DNS server. */
export function dnsResolver(options: { servers?: string[]; now?: () => number } = {}): Resolver {
  // Made on first use: a c-ares channel reads the system's resolver configuration, which a
  // function that never posts (or a cold start) need not pay for.
  let channel: InstanceType<typeof dns.Resolver> | undefined;
  const resolver = () => {
    if (!channel) {
      channel = new dns.Resolver({ timeout: QUERY_TIMEOUT_MS, tries: QUERY_TRIES });
      if (options.servers) channel.setServers(options.servers);
    }
    return channel;
  };
  const now = options.now ?? Date.now;
  const cache = new Map<string, { answer: Answer; expiresAt: number }>();
  const inFlight = new Map<string, Promise<Answer>>();

  const ask = async (name: string): Promise<Answer> => {
    const [v4, v6] = await Promise.allSettled([
      resolver().resolve4(name, { ttl: true }),
      resolver().resolve6(name, { ttl: true }),
    ]);
    // One family failing to answer (a timeout, SERVFAIL) is not "no such records": the answer would
    // be half of it (an IPv6-only answer where Lambda has no IPv6 route), so ask the system instead.
    const failed = [v4, v6].some(
      (r) => r.status === 'rejected' && !NO_RECORDS.has((r.reason as NodeJS.ErrnoException).code ?? ''),
    );
    const records = [
      ...(v4.status === 'fulfilled' ? v4.value.map((r) => ({ ...r, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((r) => ({ ...r, family: 6 as const })) : []),
    ].slice(0, MAX_ADDRESSES);
    if (failed || records.length === 0) return lookupAll(name);
    const answer = Object.freeze(records.map(({ address, family }) => Object.freeze({ address, family }))) as Answer;
    const ttl = Math.min(MAX_CACHE_SECONDS, ...records.map((r) => r.ttl));
    if (ttl > 0) {
      cache.set(name, { answer, expiresAt: now() + ttl * 1000 });
      if (cache.size > MAX_CACHED_NAMES) cache.delete(cache.keys().next().value!);
    }
    return answer;
  };

  return async (hostname) => {
    const name = hostname.toLowerCase();
    // RFC 6761: localhost is the system's to answer, never DNS's (development mode's receivers).
    if (name === 'localhost') return lookupAll(name);
    const hit = cache.get(name);
    if (hit && hit.expiresAt > now()) return hit.answer;
    cache.delete(name);
    // Concurrent deliveries to one name share one lookup.
    let pending = inFlight.get(name);
    if (!pending) {
      pending = ask(name).finally(() => inFlight.delete(name));
      inFlight.set(name, pending);
    }
    return pending;
  };
}

/** The service's resolver (one cache per Lambda instance). Outbound callers may pass their own (tests script DNS with it). */
export const systemResolver: Resolver = dnsResolver();

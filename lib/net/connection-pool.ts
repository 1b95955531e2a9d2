/**
 * Keep-alive connections to webhook endpoints, pooled per (scheme, checked address, port, TLS
 * server name). Each pool is its own Agent whose sockets can only connect to that one address
 * (its lookup answers nothing else), so a socket is only ever reused for an address that the
 * caller has just checked again: lib/net/outbound.ts resolves the name on every request (answers
 * kept for their DNS TTL) and picks a pool only for an address in that current, fully allowed
 * answer.
 *
 * Idle sockets close after IDLE_SOCKET_MS, below the keep-alive timeout of common receivers (Node's
 * 5 s, nginx 75 s, ALB 60 s), so we rarely send on a socket the far end is closing; when it happens,
 * the reset is an ordinary failed attempt, retried by the schedule.
 */
import { createHash } from 'node:crypto';
import type http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { httpModule } from './http-module.ts';

export const IDLE_SOCKET_MS = 4000;
/** Sockets per pool: the most a delivery batch (10 messages) can use at once, with room. */
const MAX_SOCKETS_PER_POOL = 16;
/** Pools kept; the least recently used beyond it is closed. */
const MAX_POOLS = 200;

export interface PoolTarget {
  protocol: 'http:' | 'https:';
  address: string;
  family: 4 | 6;
  port: number;
  /** The URL's host name: TLS server name and certificate check (never the address); '' for a literal address. */
  servername: string;
  /** Extra trusted certificate authority (tests and benchmarks with a local self-signed receiver). */
  ca?: string;
}

const pools = new Map<string, http.Agent>();

/** A short digest of an extra CA, computed once per CA (hashing it per request showed in the benchmark's profile). */
const caDigests = new Map<string, string>();
function caDigest(ca: string): string {
  let digest = caDigests.get(ca);
  if (!digest) {
    digest = createHash('sha256').update(ca).digest('hex').slice(0, 16);
    if (caDigests.size >= MAX_POOLS) caDigests.clear();
    caDigests.set(ca, digest);
  }
  return digest;
}

function poolKey(target: PoolTarget): string {
  return [target.protocol, target.address, target.port, target.servername, target.ca ? caDigest(target.ca) : ''].join(
    '|',
  );
}

/** A `lookup` that can only ever answer with this one checked address. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((
    _hostname: string,
    opts: { all?: boolean; family?: number | string },
    callback: (...args: unknown[]) => void,
  ) => {
    const wanted =
      opts.family === 6 || opts.family === 'IPv6' ? 6 : opts.family === 4 || opts.family === 'IPv4' ? 4 : 0;
    if (wanted && wanted !== family)
      callback(Object.assign(new Error('no checked address of the requested family'), { code: 'ENOTFOUND' }));
    else if (opts.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as LookupFunction;
}

/** What a request to this checked address needs: its pool, or (reuse off) a connection of its own with the same pinning. */
export async function connectionFor(target: PoolTarget, reuse: boolean): Promise<http.RequestOptions> {
  if (reuse) return { agent: await agentFor(target) };
  return {
    agent: false,
    lookup: pinnedLookup(target.address, target.family),
    ...(target.protocol === 'https:' ? tlsOptions(target) : {}),
  } as http.RequestOptions;
}

/** SNI and the certificate check use the URL's name; a literal address gets no SNI. */
const tlsOptions = (target: PoolTarget): https.AgentOptions => ({
  ...(target.servername ? { servername: target.servername } : {}),
  ...(target.ca ? { ca: target.ca } : {}),
});

/** The pool for a checked address (made on first use); most recently used last. */
async function agentFor(target: PoolTarget): Promise<http.Agent> {
  const key = poolKey(target);
  const existing = pools.get(key);
  if (existing) {
    pools.delete(key);
    pools.set(key, existing);
    return existing;
  }
  const options = {
    keepAlive: true,
    timeout: IDLE_SOCKET_MS,
    maxSockets: MAX_SOCKETS_PER_POOL,
    lookup: pinnedLookup(target.address, target.family),
  };
  const agent =
    target.protocol === 'https:'
      ? new https.Agent({ ...options, ...tlsOptions(target) })
      : new (await httpModule()).Agent(options);
  pools.set(key, agent);
  if (pools.size > MAX_POOLS) {
    const [oldestKey, oldest] = pools.entries().next().value!;
    pools.delete(oldestKey);
    oldest.destroy();
  }
  return agent;
}

/** Has this address a pool already (so a connection may be warm)? */
export const hasPool = (target: PoolTarget): boolean => pools.has(poolKey(target));

/** Closes every pooled connection (tests, benchmarks, shutdown). */
export function closeAllPools(): void {
  for (const agent of pools.values()) agent.destroy();
  pools.clear();
}

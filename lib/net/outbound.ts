/**
 * The one way the service talks to webhook endpoints (verify and delivery). It re-applies the URL
 * policy at connect time: the name is resolved on every request (an answer is kept for its DNS
 * TTL, lib/net/resolver.ts), every address is checked, and
 * the request goes to one of those checked addresses through a keep-alive pool that can only
 * connect to that address (lib/net/connection-pool.ts), so a DNS answer that changes between
 * check and connect (rebinding) never reaches a socket, and a pooled socket is reused only while a
 * fresh answer still contains its address. The address: one with a warm pool, else the first
 * IPv4 one (Lambda outside a VPC has no IPv6 route), else the first. TLS still verifies the
 * certificate against the name (servername stays the hostname). Redirects are not followed: a
 * 3xx is returned like any other status. One deadline covers resolve + connect + send + the
 * whole response body.
 */
import type http from 'node:http';
import https from 'node:https';
import { connectionFor, hasPool, type PoolTarget } from './connection-pool.ts';
import { httpModule } from './http-module.ts';
import { type Resolver, systemResolver } from './resolver.ts';
import { checkWebhookUrl, developmentMode as developmentModeFromEnv, hostOf, isAllowedAddress } from './url-policy.ts';

export type OutboundResult =
  | { kind: 'response'; status: number; headers: Record<string, string>; body: string; truncated?: boolean }
  | { kind: 'timeout' }
  | { kind: 'blocked'; reason: string }
  | { kind: 'network_error'; message: string; code?: string };

export interface OutboundRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** Milliseconds for the whole exchange; default 10 000 (docs/api.md). */
  deadlineMs?: number;
}

export interface OutboundOptions {
  resolver?: Resolver;
  /** Defaults to the DEVELOPMENT_MODE environment variable. */
  developmentMode?: boolean;
  /** False: a new connection for this request, closed after it (the benchmark's baseline). Default true. */
  reuseConnections?: boolean;
  /** An extra trusted certificate authority (tests and benchmarks with a local self-signed receiver). */
  ca?: string;
}

export const DEFAULT_DEADLINE_MS = 10_000;
/** Enough for any sensible acknowledgement; a larger body is cut here and flagged `truncated`. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
export const USER_AGENT = 'TemplateMarketplace-Webhooks/1.0';

type Address = Awaited<ReturnType<Resolver>>[number];
/** Array.isArray does not narrow a readonly array out of a union. */
const isAddressList = (value: readonly Address[] | OutboundResult): value is readonly Address[] => Array.isArray(value);

export async function postJson(request: OutboundRequest, options: OutboundOptions = {}): Promise<OutboundResult> {
  const policy = { developmentMode: options.developmentMode ?? developmentModeFromEnv() };
  const checked = checkWebhookUrl(request.url, policy);
  if (!checked.ok) return { kind: 'blocked', reason: checked.reason };
  const url = checked.url;

  const deadline: Deadline = { expired: false };
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<OutboundResult>((resolve) => {
    timer = setTimeout(() => {
      deadline.expired = true;
      deadline.cancel?.();
      resolve({ kind: 'timeout' });
    }, request.deadlineMs ?? DEFAULT_DEADLINE_MS);
  });
  try {
    return await Promise.race([expiry, exchange(url, request, options, policy, deadline)]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The deadline's state, shared with the exchange: a request in flight registers how to cancel it.
 * Not an AbortSignal: a signal on every request adds listeners, and aborting one builds an
 * AbortError with its stack, together about a tenth of a pooled POST's CPU.
 */
interface Deadline {
  expired: boolean;
  cancel?: () => void;
}

async function exchange(
  url: URL,
  request: OutboundRequest,
  options: OutboundOptions,
  policy: { developmentMode: boolean },
  deadline: Deadline,
): Promise<OutboundResult> {
  const addresses = await resolveChecked(url, options.resolver ?? systemResolver, policy);
  if (!isAddressList(addresses)) return addresses;
  if (deadline.expired) return { kind: 'timeout' };
  const targets = addresses.map(
    (a): PoolTarget => ({
      protocol: url.protocol === 'https:' ? 'https:' : 'http:',
      address: a.address,
      family: a.family,
      port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
      servername: hostOf(url).kind === 'name' ? url.hostname : '',
      ...(options.ca ? { ca: options.ca } : {}),
    }),
  );
  const target = targets.find(hasPool) ?? targets.find((t) => t.family === 4) ?? targets[0]!;
  const connection = await connectionFor(target, options.reuseConnections !== false);
  if (deadline.expired) return { kind: 'timeout' };
  return send(url, request, connection, deadline);
}

/** Resolves the host (a literal address resolves to itself) and refuses the lot if any address is not allowed. */
async function resolveChecked(
  url: URL,
  resolver: Resolver,
  policy: { developmentMode: boolean },
): Promise<readonly Address[] | OutboundResult> {
  const host = hostOf(url);
  let addresses: readonly Address[];
  if (host.kind === 'ip') {
    addresses = [{ address: host.address, family: host.address.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await resolver(host.name);
    } catch (err) {
      return { kind: 'network_error', message: `could not resolve ${host.name}: ${errorText(err)}` };
    }
    if (addresses.length === 0) return { kind: 'network_error', message: `${host.name} has no addresses` };
  }
  // Every address, not just the first: a socket (happy eyeballs) may try any of them.
  const bad = addresses.find((a) => !isAllowedAddress(a.address, policy));
  if (bad) return { kind: 'blocked', reason: `${url.hostname} resolves to a forbidden address (${bad.address}).` };
  return addresses;
}

async function send(
  url: URL,
  request: OutboundRequest,
  connection: http.RequestOptions,
  deadline: Deadline,
): Promise<OutboundResult> {
  const client = url.protocol === 'https:' ? https : await httpModule();
  return new Promise((resolve) => {
    const req = client.request(url, {
      method: 'POST',
      ...connection,
      headers: {
        'user-agent': USER_AGENT,
        'content-type': 'application/json',
        ...lowerCaseKeys(request.headers),
        'content-length': String(Buffer.byteLength(request.body)),
      },
    });
    // Destroying the request closes its socket, mid-body too; what it emits after the deadline's answer is ignored.
    deadline.cancel = () => req.destroy();
    req.on('error', (err) => resolve(networkError(err)));
    if (deadline.expired) return void req.destroy(); // expired while the module loaded: send nothing
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const finish = () =>
        resolve({
          kind: 'response',
          status: res.statusCode ?? 0,
          headers: flattenHeaders(res.headers),
          body: Buffer.concat(chunks).toString('utf8'),
          ...(truncated ? { truncated } : {}),
        });
      res.on('data', (chunk: Buffer) => {
        if (truncated) return;
        const room = MAX_RESPONSE_BYTES - size;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        size += Math.min(chunk.length, room);
        if (chunk.length > room) {
          truncated = true;
          finish();
          res.destroy();
        }
      });
      res.on('end', finish);
      res.on('error', (err) => resolve(networkError(err)));
    });
    req.end(request.body);
  });
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function networkError(err: unknown): OutboundResult {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return { kind: 'network_error', message: errorText(err), ...(typeof code === 'string' ? { code } : {}) };
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

/**
 * The one webhook URL policy (docs/api.md, PATCH …/webhook): used as written by PATCH and verify, and
 * on every resolved address at connect time by lib/net/outbound.ts.
 *
 * - `https:` only. Development mode (the local runtime) also allows `localhost`, `127.0.0.1`
 *   and `[::1]`, with `http:` or `https:`; nothing else loopback, not even there.
 * - Hosts are judged after WHATWG URL parsing, which already folds every IPv4 spelling
 *   (decimal, octal, hex, short) into a dotted quad and IPv6 into its compressed form, so a
 *   spelling cannot differ between our check and the socket.
 * - Names that can only be internal (`localhost` and `*.localhost`, single labels that a
 *   search domain would complete, `.internal`, `.local`, `.localdomain`, `.home.arpa`) are
 *   refused as written; every other name is judged by its addresses when it is connected to.
 */

import { setting } from '../core/environment.ts';
import { isForbiddenIPv4, isForbiddenIPv6, parseIp } from './ip.ts';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

export interface PolicyOptions {
  developmentMode: boolean;
}

/** Read per call: the local runtime and tests set it at run time. */
export const developmentMode = (): boolean => setting('DEVELOPMENT_MODE');

/** True for every address that is not public unicast, in any spelling; unreadable text counts as forbidden. */
export function isForbiddenAddress(ip: string): boolean {
  const parsed = parseIp(ip);
  if (!parsed) return true;
  return parsed.family === 4 ? isForbiddenIPv4(parsed.value) : isForbiddenIPv6(parsed.words);
}

/** The development-mode exception names exactly these two addresses (plus the name `localhost`). */
export function isDevelopmentLoopback(ip: string): boolean {
  const parsed = parseIp(ip);
  if (!parsed) return false;
  if (parsed.family === 4) return parsed.value === 0x7f000001;
  return parsed.words.every((w, i) => w === (i === 7 ? 1 : 0));
}

/** May a socket go to this resolved address? */
export function isAllowedAddress(ip: string, options: PolicyOptions): boolean {
  return !isForbiddenAddress(ip) || (options.developmentMode && isDevelopmentLoopback(ip));
}

const INTERNAL_SUFFIXES = ['.localhost', '.internal', '.local', '.localdomain', '.home.arpa'];

/** What kind of host a parsed URL names: a literal address (brackets removed) or a DNS name. */
export function hostOf(url: URL): { kind: 'ip'; address: string } | { kind: 'name'; name: string } {
  const host = url.hostname;
  if (host.startsWith('[')) return { kind: 'ip', address: host.slice(1, -1) };
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return { kind: 'ip', address: host };
  return { kind: 'name', name: host.endsWith('.') ? host.slice(0, -1) : host };
}

export function checkWebhookUrl(raw: string, options: PolicyOptions): UrlCheck {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return refuse(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  if (raw !== raw.trim()) return refuse('must not start or end with whitespace');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('is not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return refuse('must use https:');
  if (url.username || url.password) return refuse('must not contain credentials');
  const host = hostOf(url);
  const devLoopback =
    options.developmentMode && (host.kind === 'ip' ? isDevelopmentLoopback(host.address) : host.name === 'localhost');
  if (url.protocol === 'http:' && !devLoopback) {
    return refuse(
      options.developmentMode ? 'must use https: (http: only for localhost, 127.0.0.1 and [::1])' : 'must use https:',
    );
  }
  if (devLoopback) return { ok: true, url };
  if (host.kind === 'ip') {
    return isForbiddenAddress(host.address)
      ? refuse('points to a private, loopback or reserved address')
      : { ok: true, url };
  }
  const name = host.name;
  if (name === 'localhost' || INTERNAL_SUFFIXES.some((s) => name.endsWith(s))) return refuse('names an internal host');
  if (!name.includes('.')) return refuse('must name a fully qualified public host');
  return { ok: true, url };
}

const refuse = (reason: string): UrlCheck => ({ ok: false, reason: `webhook_url ${reason}.` });

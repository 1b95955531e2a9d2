/**
 * Checking that a webhook request came from the service, with Web Crypto only (Node ≥ 20 and
 * browsers, no dependency). Two signatures travel on every delivery and handshake:
 *
 * - `x-service-signature`: lowercase hex HMAC-SHA-256 of `<x-service-timestamp>.<raw body>`, keyed
 *   with the whole secret string (`whsec_…`);
 * - Standard Webhooks `webhook-signature`: `v1,<base64 HMAC-SHA-256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`,
 *   keyed with the bytes of the secret after `whsec_`.
 *
 * The timestamp headers are always required. When `webhook-signature` is there (the service
 * always sends it) it is the one checked, against every `v1,` entry and every secret given: during a
 * rotation's overlap it carries the new and the previous secret's signatures, so a receiver with
 * either secret verifies. Without it, `x-service-signature` must match.
 *
 * With `publicKeys` (an agent with `v1a` on: its JWKs from `GET …/webhook/public-keys` or the
 * keyless `GET /api/v1/webhook-keys/{agent_id}`), the `v1a,` entries of `webhook-signature` are
 * checked with Ed25519 (Web Crypto; Node ≥ 22, current browsers): a receiver then holds no secret
 * that could forge a delivery. Given both, both must match.
 */
import type { AgentEvent, TestEvent } from './types/agents.ts';

export type WebhookVerificationErrorCode =
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'invalid_signature'
  | 'invalid_body';

/** Why a webhook request was refused; answer it with 401 (400 for `invalid_body`). */
export class WebhookVerificationError extends Error {
  readonly code: WebhookVerificationErrorCode;

  constructor(code: WebhookVerificationErrorCode, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.code = code;
  }
}

/** The handshake the service sends when a webhook is verified; answer `{"challenge": <challenge>}`. */
export interface WebhookChallenge {
  type: 'service.webhook.verify';
  challenge: string;
  agent_id: string;
  timestamp: string;
}

export type WebhookPayload = AgentEvent | TestEvent | WebhookChallenge;

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** An ed25519 public key as the service publishes it (a JWK with `kty: OKP`, `crv: Ed25519`). */
export interface Ed25519PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid?: string;
  [other: string]: unknown;
}

export interface VerifyWebhookInput {
  /** The webhook secret; several during a rotation (any one may match). Optional when `publicKeys` is given. */
  secret?: string | readonly string[];
  /** The agent's ed25519 public keys, to check `v1a` signatures (any one may match). */
  publicKeys?: Ed25519PublicJwk | readonly Ed25519PublicJwk[];
  /** The request's headers, as `Headers` (fetch, workers) or a plain object (Node's `req.headers`). */
  headers: WebhookHeaders;
  /** The body exactly as received: the MAC is over bytes, so never re-serialise parsed JSON. */
  rawBody: string | Uint8Array;
  /** How far the timestamp may be from this clock, either way. Default 300. */
  toleranceSeconds?: number;
  /** For tests: the current time in unix seconds. */
  nowSeconds?: number;
}

const encoder = new TextEncoder();

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

async function hmac(key: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey('raw', concat(key), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, concat(message)));
}

/** Compares in time that depends only on the length, so timing tells nothing about a guess. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** Standard or URL-safe base64 (secrets issued before the Standard Webhooks format used the latter). */
function fromBase64(text: string): Uint8Array | undefined {
  const standard = text.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(standard)) return undefined;
  try {
    const binary = atob(standard.padEnd(Math.ceil(standard.length / 4) * 4, '='));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

const standardKey = (secret: string) => fromBase64(secret.startsWith('whsec_') ? secret.slice(6) : secret);

/**
 * Verifies a webhook request and returns its parsed body (a contract event or the handshake).
 * Throws WebhookVerificationError when a header is missing, the timestamp is outside the
 * tolerance, no secret matches a signature, or the body is not a JSON object.
 */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<WebhookPayload> {
  const secrets =
    input.secret === undefined ? [] : typeof input.secret === 'string' ? [input.secret] : [...input.secret];
  const publicKeys =
    input.publicKeys === undefined
      ? []
      : Array.isArray(input.publicKeys)
        ? [...(input.publicKeys as readonly Ed25519PublicJwk[])]
        : [input.publicKeys as Ed25519PublicJwk];
  if (secrets.length === 0 && publicKeys.length === 0)
    throw new TypeError('verifyWebhook needs at least one secret or public key.');
  const timestamp = headerOf(input.headers, 'x-service-timestamp');
  const signature = headerOf(input.headers, 'x-service-signature');
  if (!timestamp || !signature)
    throw new WebhookVerificationError('missing_header', 'Missing x-service-timestamp or x-service-signature header.');
  if (!/^\d{1,12}$/.test(timestamp))
    throw new WebhookVerificationError('invalid_timestamp', 'x-service-timestamp is not unix seconds.');
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (input.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      'x-service-timestamp is too far from the current time (a replay, or a wrong clock).',
    );
  }
  const body = typeof input.rawBody === 'string' ? encoder.encode(input.rawBody) : input.rawBody;

  const standard = headerOf(input.headers, 'webhook-signature');
  if (publicKeys.length > 0) await checkV1a(input.headers, standard, timestamp, body, publicKeys);
  if (secrets.length === 0) {
    // Checked by public key alone.
  } else if (standard === undefined) {
    const given = /^[0-9a-f]{64}$/.test(signature) ? signature : undefined;
    const serviceOk =
      given !== undefined &&
      (await anyMatch(secrets, async (s) =>
        sameBytes(
          encoder.encode(toHex(await hmac(encoder.encode(s), concat(encoder.encode(`${timestamp}.`), body)))),
          encoder.encode(given),
        ),
      ));
    if (!serviceOk)
      throw new WebhookVerificationError('invalid_signature', 'x-service-signature does not match any secret.');
  } else {
    // The standard signature decides when it is sent (the service always sends it): it covers the
    // id, the timestamp and the body, and during a rotation's overlap it carries one `v1,` per
    // secret, so a receiver still holding the previous secret verifies. `x-service-signature` is
    // made with the current secret alone and cannot serve such a receiver.
    const id = headerOf(input.headers, 'webhook-id');
    const standardTimestamp = headerOf(input.headers, 'webhook-timestamp');
    if (!id || standardTimestamp !== timestamp)
      throw new WebhookVerificationError(
        'invalid_signature',
        'webhook-id is missing or webhook-timestamp differs from x-service-timestamp.',
      );
    const offered = signaturesOf(standard, 'v1');
    const standardOk = await anyMatch(secrets, async (s) => {
      const key = standardKey(s);
      if (!key) return false;
      const expected = await hmac(key, concat(encoder.encode(`${id}.${timestamp}.`), body));
      return offered.some((o) => sameBytes(o, expected));
    });
    if (!standardOk)
      throw new WebhookVerificationError('invalid_signature', 'webhook-signature does not match any secret.');
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError('invalid_body', 'The body is not JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new WebhookVerificationError('invalid_body', 'The body is not a JSON object.');
  return parsed as WebhookPayload;
}

/** The decoded signatures of one version among the space-separated `<version>,<base64>` entries of `webhook-signature`. */
function signaturesOf(header: string, version: 'v1' | 'v1a'): Uint8Array[] {
  return header
    .split(' ')
    .filter((s) => s.startsWith(`${version},`))
    .map((s) => fromBase64(s.slice(version.length + 1)))
    .filter((b): b is Uint8Array => b !== undefined);
}

/** The `v1a,` entries of `webhook-signature` against every public key: ed25519 over `<webhook-id>.<timestamp>.<body>`. */
async function checkV1a(
  headers: WebhookHeaders,
  standard: string | undefined,
  timestamp: string,
  body: Uint8Array,
  publicKeys: readonly Ed25519PublicJwk[],
): Promise<void> {
  const id = headerOf(headers, 'webhook-id');
  if (standard === undefined || !id || headerOf(headers, 'webhook-timestamp') !== timestamp)
    throw new WebhookVerificationError(
      'invalid_signature',
      'webhook-signature or webhook-id is missing, or webhook-timestamp differs from x-service-timestamp.',
    );
  const offered = signaturesOf(standard, 'v1a').filter((b) => b.length === 64);
  const message = concat(encoder.encode(`${id}.${timestamp}.`), body);
  const results = await Promise.all(
    publicKeys.map(async (jwk) => {
      if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') return false;
      const key = await crypto.subtle.importKey(
        'jwk',
        { kty: 'OKP', crv: 'Ed25519', x: jwk.x },
        { name: 'Ed25519' },
        false,
        ['verify'],
      );
      const checks = await Promise.all(
        offered.map((sig) => crypto.subtle.verify('Ed25519', key, concat(sig), message)),
      );
      return checks.includes(true);
    }),
  );
  if (!results.includes(true))
    throw new WebhookVerificationError(
      'invalid_signature',
      'No v1a signature of webhook-signature matches a public key.',
    );
}

/** Tries every secret (no early exit), so timing does not tell which secret matched. */
async function anyMatch(secrets: readonly string[], test: (secret: string) => Promise<boolean>): Promise<boolean> {
  const results = await Promise.all(secrets.map(test));
  return results.includes(true);
}

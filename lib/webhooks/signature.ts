/**
 * Delivery and handshake signatures (docs/webhooks.md), two schemes on every request:
 *
 * - the service's own: lowercase hex HMAC-SHA-256, keyed with the whole webhook secret string
 *   (`whsec_…`, UTF-8), over `<timestamp>.<exact body>`, the timestamp (unix seconds) in
 *   `x-service-timestamp`;
 * - Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp` (the same
 *   seconds) and `webhook-signature: v1,<base64 HMAC-SHA-256 of "<id>.<timestamp>.<body>">`,
 *   keyed with the secret's bytes after `whsec_`, so receivers can use a stock library.
 *
 * The timestamp is inside both MACs so a captured request cannot be replayed with a fresh one.
 */

import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';
import { InvariantError } from '../core/errors.ts';
import { computeV1a } from './ed25519.ts';
import { standardSigningKey } from './secret.ts';

export const TIMESTAMP_HEADER = 'x-service-timestamp';
export const SIGNATURE_HEADER = 'x-service-signature';

export interface SignatureHeaders {
  'x-service-timestamp': string;
  'x-service-signature': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function computeSignature(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

export function computeStandardSignature(secret: string, id: string, timestamp: string, body: string): string {
  return (
    'v1,' +
    createHmac('sha256', standardSigningKey(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')
  );
}

/**
 * Both schemes' headers for one request; `id` is the event id (the handshake's own id for a
 * challenge). `secrets` is the current secret, or the current one first and then the previous one
 * while a rotation's overlap lasts (lib/webhooks/rotation.ts): `webhook-signature` then carries one
 * `v1,…` per secret, space-separated as Standard Webhooks allows, and `x-service-signature` stays
 * the current secret's alone. `ed25519Keys` (an agent with `v1a` on, signing-keys.ts) add one
 * `v1a,…` per key after the `v1,` entries: stock Standard Webhooks verifiers skip versions they do
 * not know, so a receiver checking only `v1` is not disturbed.
 */
export function signatureHeaders(
  secrets: string | readonly string[],
  body: string,
  id: string,
  now: Date = new Date(),
  ed25519Keys: readonly KeyObject[] = [],
): SignatureHeaders {
  const [current, ...previous] = typeof secrets === 'string' ? [secrets] : secrets;
  if (current === undefined) throw new InvariantError('signatureHeaders needs a secret');
  const timestamp = String(Math.floor(now.getTime() / 1000));
  return {
    [TIMESTAMP_HEADER]: timestamp,
    [SIGNATURE_HEADER]: computeSignature(current, timestamp, body),
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': [
      ...[current, ...previous].map((secret) => computeStandardSignature(secret, id, timestamp, body)),
      ...ed25519Keys.map((key) => computeV1a(key, id, timestamp, body)),
    ].join(' '),
  };
}

/**
 * The receiver's side of `x-service-signature`, as docs/webhooks.md describes it (tests use it;
 * integrators use `verifyWebhook` of the client package). Constant-time compare; a timestamp
 * further than `toleranceSeconds` from now is refused so an old capture cannot be replayed.
 */
export function verifySignature(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: string,
  options: { now?: Date; toleranceSeconds?: number } = {},
): boolean {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature || !/^\d+$/.test(timestamp) || !/^[0-9a-f]{64}$/.test(signature)) return false;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(computeSignature(secret, timestamp, body), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

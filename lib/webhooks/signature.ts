import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Delivery and handshake signatures (interface document, section 5): lowercase hex
 * HMAC-SHA-256, keyed with the whole webhook secret string (`whsec_…`, UTF-8), over
 * `<timestamp>.<exact body>`, where the timestamp is unix seconds and travels in
 * `x-service-timestamp`. The timestamp is inside the MAC so a captured request cannot be
 * replayed later with a fresh timestamp.
 */
export const TIMESTAMP_HEADER = 'x-service-timestamp';
export const SIGNATURE_HEADER = 'x-service-signature';

export interface SignatureHeaders {
  'x-service-timestamp': string;
  'x-service-signature': string;
}

export function computeSignature(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

export function signatureHeaders(secret: string, body: string, now: Date = new Date()): SignatureHeaders {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  return { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: computeSignature(secret, timestamp, body) };
}

/**
 * The receiver's side, as docs/webhooks.md describes it (tests and sample receivers use it).
 * Constant-time compare; a timestamp further than `toleranceSeconds` from now is refused so an
 * old capture cannot be replayed.
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

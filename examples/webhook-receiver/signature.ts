import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far `x-service-timestamp` may be from our clock before a request counts as a replay. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface SignedRequest {
  /** `x-service-timestamp`: unix seconds. */
  timestamp: string | undefined;
  /** `x-service-signature`: lowercase hex HMAC-SHA-256. */
  signature: string | undefined;
  /** The body exactly as received: the MAC is over bytes, so never re-serialise parsed JSON. */
  rawBody: Buffer;
}

/**
 * Checks a delivery's signature: HMAC-SHA-256 keyed with the webhook secret over
 * `<timestamp>.<raw body>`. The timestamp is inside the MAC, so refusing stale timestamps stops
 * a captured request from being replayed later. Returns why it is refused, or null if it is good.
 */
export function signatureProblem(secret: string, request: SignedRequest, options: { nowSeconds?: number; toleranceSeconds?: number } = {}): string | null {
  const { timestamp, signature, rawBody } = request;
  if (!timestamp || !signature) return 'Missing x-service-timestamp or x-service-signature header.';
  if (!/^\d{1,12}$/.test(timestamp)) return 'x-service-timestamp is not unix seconds.';
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) return 'x-service-signature is not a hex SHA-256 HMAC.';
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return 'x-service-timestamp is too far from the current time.';
  const expected = createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(rawBody).digest();
  // Constant time, so response timing reveals nothing about how much of a guess was right.
  return timingSafeEqual(expected, Buffer.from(signature, 'hex')) ? null : 'Signature mismatch.';
}

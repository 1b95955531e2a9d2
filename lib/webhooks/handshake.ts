/**
 * The verification handshake of docs/api.md ("Webhook requests", the handshake): what is sent, and how the reply is judged. No I/O here.
 */
import { type KeyObject, randomBytes, randomUUID } from 'node:crypto';
import type { OutboundRequest, OutboundResult } from '../net/outbound.ts';
import { signatureHeaders } from './signature.ts';

export const VERIFY_EVENT_TYPE = 'service.webhook.verify';
export const EVENT_HEADER = 'X-Service-Event';

/**
 * 32 random bytes in standard base64. Its `=` padding (always there for 32 bytes) and any `+`
 * or `/` are URL-unsafe on purpose: an endpoint that URL-encodes or otherwise re-encodes the
 * token instead of echoing it fails the handshake here rather than confusing users later.
 */
export const newChallengeToken = (): string => randomBytes(32).toString('base64');

export interface ChallengeInput {
  agentId: string;
  url: string;
  /** The current secret, then the previous one during a rotation's overlap (signature.ts). */
  secret: string | readonly string[];
  token: string;
  now?: Date;
  /** The agent's ed25519 keys when `v1a` is on (signing-keys.ts). */
  ed25519Keys?: readonly KeyObject[];
  /** The endpoint's custom headers, unsealed (custom-headers.ts): sent on the handshake too. */
  customHeaders?: Readonly<Record<string, string>>;
}

/**
 * Signed like a delivery, so a receiver can test its signature check with the handshake. Its
 * `webhook-id` is the handshake's own (`verify_<uuid>`): there is no event behind it.
 */
export function buildChallengeRequest({
  agentId,
  url,
  secret,
  token,
  now = new Date(),
  ed25519Keys = [],
  customHeaders = {},
}: ChallengeInput): OutboundRequest {
  const body = JSON.stringify({
    type: VERIFY_EVENT_TYPE,
    challenge: token,
    agent_id: agentId,
    timestamp: now.toISOString(),
  });
  return {
    url,
    body,
    headers: {
      ...customHeaders,
      'Content-Type': 'application/json',
      [EVENT_HEADER]: VERIFY_EVENT_TYPE,
      ...signatureHeaders(secret, body, `verify_${randomUUID()}`, now, ed25519Keys),
    },
  };
}

export type HandshakeFailureCode =
  | 'verification_timeout'
  | 'challenge_mismatch'
  | 'endpoint_error'
  | 'url_validation_error';
export type Verdict = { ok: true } | { ok: false; code: HandshakeFailureCode; message: string };

/** Required reply: HTTP 200, Content-Type application/json, body {"challenge": <the token, byte for byte>}. */
export function judgeChallengeReply(result: OutboundResult, token: string): Verdict {
  switch (result.kind) {
    case 'timeout':
      return fail('verification_timeout', 'The endpoint did not answer the challenge within 10 seconds.');
    case 'blocked':
      return fail('url_validation_error', `The webhook URL is not allowed: ${result.reason}`);
    case 'network_error':
      return fail('endpoint_error', `Could not reach the endpoint: ${result.message}`);
  }
  if (result.status !== 200) {
    const redirect = result.status >= 300 && result.status < 400 ? ' Redirects are not followed.' : '';
    return fail('endpoint_error', `The endpoint answered HTTP ${result.status}; the handshake needs 200.${redirect}`);
  }
  const mediaType = (result.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    return fail('endpoint_error', 'The endpoint did not answer with Content-Type: application/json.');
  }
  let reply: unknown;
  try {
    if (result.truncated) throw new Error('too large');
    reply = JSON.parse(result.body);
  } catch {
    return fail('endpoint_error', 'The endpoint did not answer with a JSON body.');
  }
  const echoed =
    typeof reply === 'object' && reply !== null ? (reply as Record<string, unknown>)['challenge'] : undefined;
  if (echoed !== token) {
    return fail(
      'challenge_mismatch',
      'The endpoint did not return the challenge exactly as it was sent (no decoding, encoding or trimming).',
    );
  }
  return { ok: true };
}

const fail = (code: HandshakeFailureCode, message: string): Verdict => ({ ok: false, code, message });

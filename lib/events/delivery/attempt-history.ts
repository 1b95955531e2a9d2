import type { OutboundResult } from '../../net/outbound.ts';

/**
 * One entry of a delivery's attempt history (docs/webhooks.md, "Attempt history"): what was sent
 * when, how long it took and what came back. Kept in the delivery record itself, written by the
 * same conditional update that counts the attempt (lib/events/delivery/attempt-outcome.ts).
 */
export interface AttemptEntry {
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  /** Null on success; otherwise a short kind (ATTEMPT_ERRORS). */
  error: AttemptError | null;
  /** The first RESPONSE_BODY_BYTES of the answer as text, or null without an answer. */
  response_body: string | null;
}

export const ATTEMPT_ERRORS = [
  'http_status',
  'redirect',
  'timeout',
  'connection_refused',
  'connection_reset',
  'dns',
  'tls',
  'url_policy',
  'network',
  /** AWS destinations (lib/destinations): the customer's resource policy refused the service's session. */
  'access_denied',
  /** AWS destinations: any other refusal (queue or bus missing, throttled, invalid). */
  'aws_error',
] as const;
export type AttemptError = (typeof ATTEMPT_ERRORS)[number];

export const RESPONSE_BODY_BYTES = 1024;

/**
 * The newest entries kept per delivery: the schedule's 9 attempts and many manual retries fit, and
 * the record stays far below DynamoDB's 400 KB item limit (each entry is at most about 1.3 KB).
 */
export const MAX_ATTEMPT_LOG = 50;

/** Map keys of the stored history: zero-padded so they sort, and distinct per attempt number. */
export const attemptLogKey = (attempt: number): string => `a${String(attempt).padStart(6, '0')}`;

export function attemptError(result: OutboundResult): AttemptError | null {
  switch (result.kind) {
    case 'response':
      if (result.status >= 200 && result.status < 300) return null;
      return result.status >= 300 && result.status < 400 ? 'redirect' : 'http_status';
    case 'timeout':
      return 'timeout';
    case 'blocked':
      return 'url_policy';
    case 'network_error':
      return networkErrorKind(result.code, result.message);
  }
}

function networkErrorKind(code: string | undefined, message: string): AttemptError {
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || /socket hang up/i.test(message)) return 'connection_reset';
  if (
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN' ||
    code === 'ENODATA' ||
    /could not resolve|has no addresses/.test(message)
  )
    return 'dns';
  if (
    (code && /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|HOSTNAME/i.test(code)) ||
    /certificate|tls|ssl/i.test(message)
  )
    return 'tls';
  return 'network';
}

/** The first RESPONSE_BODY_BYTES bytes as text, cut on a character boundary. */
export function responseBodyHead(body: string): string {
  const bytes = Buffer.from(body, 'utf8');
  if (bytes.length <= RESPONSE_BODY_BYTES) return body;
  let end = RESPONSE_BODY_BYTES;
  // Back off continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** An entry without its number: the write that records it knows the number (attempt-outcome.ts). */
export function attemptEntry(
  startedAtMs: number,
  durationMs: number,
  result: OutboundResult,
): Omit<AttemptEntry, 'attempt'> {
  return {
    started_at: new Date(startedAtMs).toISOString(),
    duration_ms: Math.max(0, Math.round(durationMs)),
    status_code: result.kind === 'response' ? result.status : null,
    error: attemptError(result),
    response_body: result.kind === 'response' ? responseBodyHead(result.body) : null,
  };
}

/** The stored map as the API's list, oldest first, each entry's fields in the documented order (DynamoDB keeps no map order). */
export function attemptList(log: Record<string, AttemptEntry> | undefined): AttemptEntry[] {
  return Object.values(log ?? {})
    .sort((a, b) => a.attempt - b.attempt)
    .map(({ attempt, started_at, duration_ms, status_code, error, response_body }) => ({
      attempt,
      started_at,
      duration_ms,
      status_code,
      error,
      response_body,
    }));
}

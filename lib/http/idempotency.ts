import type { APIGatewayProxyResult } from 'aws-lambda';
import { createHash, randomUUID } from 'node:crypto';
import { claimKey, completeKey, readKey, releaseKey, type Claim, type StoredAnswer } from '../idempotency/records.ts';
import { AppError, validationError } from '../core/errors.ts';

/**
 * `Idempotency-Key` on POST (docs/api.md "Idempotency"): the first answer to a caller's key is
 * stored and replayed for the same method, path and body; another request under the same key is
 * 422 `idempotency_key_reused`; a twin that arrives while the first still runs waits for its answer.
 * Answers worth retrying (5xx, 429) are not kept, so a retry runs again.
 */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotency-replayed';
/** Printable ASCII, like Stripe's and the IETF draft's keys; UUIDs fit comfortably. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** How long a twin waits for the first request's answer before giving up with 409. */
const TWIN_WAIT_MS = 5_000;
const TWIN_POLL_MS = 100;

export interface IdempotentRequest {
  userId: string;
  key: string;
  method: string;
  path: string;
  rawBody: string;
  requestId: string;
  /** The function's time left: a claim outlives its function by a second, then may be taken over. */
  remainingMs: number;
  /** Headers every answer gets fresh (CORS for this request's origin). */
  freshHeaders: Record<string, string>;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** Keys are stored hashed: any printable key fits the item key, and a logged item shows no key. */
export const idempotencyKeyHash = (key: string): string => sha256(key);
/** What "the same request" means: method, route with its path ids, and the body byte for byte. */
export const requestFingerprint = (req: Pick<IdempotentRequest, 'method' | 'path' | 'rawBody'>): string => sha256(`${req.method} ${req.path}\n${req.rawBody}`);
/** Headers that belong to one request, never replayed: its id and its CORS answer. */
const perRequest = (name: string) => name === 'x-request-id' || name === 'vary' || name.startsWith('access-control-');

export function checkIdempotencyKey(key: string): void {
  if (!KEY_PATTERN.test(key)) {
    throw validationError([{ path: 'Idempotency-Key', message: 'Use 1 to 255 printable ASCII characters (a UUID is a good key).' }], 'The Idempotency-Key header is not valid.');
  }
}

/** Runs `run` once per key; `run` answers errors itself, so what it returns is the answer to keep. */
export async function idempotent(req: IdempotentRequest, run: () => Promise<APIGatewayProxyResult>): Promise<APIGatewayProxyResult> {
  checkIdempotencyKey(req.key);
  const started = Date.now();
  const claim: Claim = {
    userId: req.userId,
    keyHash: idempotencyKeyHash(req.key),
    fingerprint: requestFingerprint(req),
    lockedUntil: started + req.remainingMs + 1_000,
    token: randomUUID(),
  };
  const waitUntil = started + Math.min(TWIN_WAIT_MS, Math.max(0, req.remainingMs - 1_000));
  for (;;) {
    if (await claimKey(claim)) return await runAndKeep(claim, run);
    const record = await readKey(claim.userId, claim.keyHash);
    if (!record) continue; // released or expired between the claim and the read: try to claim again
    if (record.fingerprint !== claim.fingerprint) {
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used for another request (another route or body); use a new key for a new request.');
    }
    if (record.state === 'completed') return replay(record.answer, req);
    if (Date.now() >= waitUntil) {
      throw new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry in a moment to get its answer.');
    }
    await new Promise((resolve) => setTimeout(resolve, TWIN_POLL_MS));
  }
}

async function runAndKeep(claim: Claim, run: () => Promise<APIGatewayProxyResult>): Promise<APIGatewayProxyResult> {
  let result: APIGatewayProxyResult;
  try {
    result = await run();
  } catch (err) {
    await releaseKey(claim);
    throw err;
  }
  if (result.statusCode >= 500 || result.statusCode === 429) {
    await releaseKey(claim);
    return result;
  }
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).filter(([name]) => !perRequest(name.toLowerCase())).map(([k, v]) => [k, String(v)]));
  // An answer DynamoDB cannot hold (over 400 KB) is still the answer; the key is then given back.
  await completeKey(claim, { status: result.statusCode, headers, body: result.body }).catch(() => releaseKey(claim));
  return result;
}

function replay(answer: StoredAnswer, req: IdempotentRequest): APIGatewayProxyResult {
  return {
    statusCode: answer.status,
    headers: { ...req.freshHeaders, 'x-request-id': req.requestId, ...answer.headers, [REPLAYED_HEADER]: 'true' },
    body: answer.body,
  };
}

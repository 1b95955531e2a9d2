/**
 * `Idempotency-Key` on every method that changes something (docs/api.md "Idempotency"): the first answer to a caller's key is
 * stored and replayed for the same method, path and body; another request under the same key is
 * 422 `idempotency_key_reused`; a twin that arrives while the first still runs waits for its answer.
 * Answers worth retrying (5xx, 429) are not kept, so a retry runs again; but a route that commits
 * its answer with its change (SealAnswer) is answered with it, committed is never reported failed.
 */

import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { AppError, validationError } from '../core/errors.ts';
import { FUTURE_TOLERANCE_MS } from '../core/settings.ts';
import {
  amendmentItem,
  type Claim,
  claimKey,
  completeKey,
  completionItem,
  readKey,
  releaseKey,
  type StoredAnswer,
} from '../idempotency/store.ts';
import { withCallDeadline } from '../store/call-deadline.ts';
import type { TransactItem } from '../store/transact.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export { takesIdempotencyKey } from './idempotent-methods.ts';
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
  /**
   * Epoch ms by which the claim (and a twin's wait) must be settled: the route's own deadline, so
   * a store that does not answer cannot take the time kept for what the stack does after the route.
   */
  claimDeadline?: number;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** Keys are stored hashed: any printable key fits the item key, and a logged item shows no key. */
export const idempotencyKeyHash = (key: string): string => sha256(key);
/** What "the same request" means: method, route with its path ids, and the body byte for byte. */
export const requestFingerprint = (req: Pick<IdempotentRequest, 'method' | 'path' | 'rawBody'>): string =>
  sha256(`${req.method} ${req.path}\n${req.rawBody}`);
/** Headers that belong to one request, never replayed: its id and its CORS answer. */
const perRequest = (name: string) => name === 'x-request-id' || name === 'vary' || name.startsWith('access-control-');

export function checkIdempotencyKey(key: string): void {
  if (!KEY_PATTERN.test(key)) {
    throw validationError(
      [{ path: 'Idempotency-Key', message: 'Use 1 to 255 printable ASCII characters (a UUID is a good key).' }],
      'The Idempotency-Key header is not valid.',
    );
  }
}

/** Runs `run` once per key; `run` answers errors itself, so what it returns is the answer to keep. */
export async function idempotent(
  req: IdempotentRequest,
  run: (seal: SealAnswer, amend: SealAnswer) => Promise<APIGatewayProxyResult>,
): Promise<APIGatewayProxyResult> {
  checkIdempotencyKey(req.key);
  const started = Date.now();
  const claim: Claim = {
    userId: req.userId,
    keyHash: idempotencyKeyHash(req.key),
    fingerprint: requestFingerprint(req),
    // A twin on an instance whose clock runs ahead (within the skew bound) must not take the key
    // over while this run can still be committing.
    lockedUntil: started + req.remainingMs + FUTURE_TOLERANCE_MS,
    token: randomUUID(),
  };
  const waitUntil = started + Math.min(TWIN_WAIT_MS, Math.max(0, req.remainingMs - 1_000));
  const bounded = <T>(call: () => Promise<T>) => withCallDeadline(req.claimDeadline, call);
  for (;;) {
    if (await bounded(() => claimKey(claim))) return await runAndKeep(claim, req, run);
    const record = await bounded(() => readKey(claim.userId, claim.keyHash));
    // No record: released or expired between the claim and the read; claim again after the pause
    // (twins that keep releasing must not make this loop spin without one).
    if (record && record.fingerprint !== claim.fingerprint) {
      throw new AppError(
        'idempotency_key_reused',
        'This Idempotency-Key was used for another request (another route or body); use a new key for a new request.',
      );
    }
    if (record?.state === 'completed') return answerFrom(record.answer, req);
    if (Date.now() >= waitUntil) {
      throw new AppError(
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still running; retry in a moment to get its answer.',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, TWIN_POLL_MS));
  }
}

/**
 * What a route's transaction stores as the key's answer, given the answer it will give (a
 * transaction item, records.ts completionItem): the change and its answer commit together.
 */
export type SealAnswer = (answer: APIGatewayProxyResult) => TransactItem;

/** The answer as stored: without the headers that belong to one request. */
function storedAnswer(result: APIGatewayProxyResult): StoredAnswer {
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {})
      .filter(([name]) => !perRequest(name.toLowerCase()))
      .map(([k, v]) => [k, String(v)]),
  );
  return { status: result.statusCode, headers, body: result.body };
}

/**
 * Runs the route and keeps its answer. A route that committed its answer with its change (the
 * seal) is answered with that answer, even when the commit's own reply was lost (a timeout after
 * the commit): releasing or completing the key then fails, the key is found completed by this
 * very claim, and that stored answer is the truth, never the 500 of the lost reply.
 */
async function runAndKeep(
  claim: Claim,
  req: IdempotentRequest,
  run: (seal: SealAnswer, amend: SealAnswer) => Promise<APIGatewayProxyResult>,
): Promise<APIGatewayProxyResult> {
  let sealed = false;
  const seal: SealAnswer = (answer) => {
    sealed = true;
    return completionItem(claim, storedAnswer(answer));
  };
  // Only after a seal: it amends the answer the seal stored.
  const amend: SealAnswer = (answer) => amendmentItem(claim, storedAnswer(answer));
  let result: APIGatewayProxyResult;
  try {
    result = await run(seal, amend);
  } catch (err) {
    // Not reached from the HTTP stack, whose `run` answers every error itself.
    await releaseKey(claim);
    throw err;
  }
  // A success of a sealed route: its transaction stored this answer.
  if (sealed && result.statusCode < 300) return result;
  const settled =
    result.statusCode >= 500 || result.statusCode === 429
      ? await releaseKey(claim)
      : // An answer DynamoDB cannot hold (over 400 KB) is still the answer; the key is then given back.
        await completeKey(claim, storedAnswer(result)).catch(() => releaseKey(claim).then(() => true));
  if (settled) return result;
  // The claim no longer runs: completed by its own transaction (that answer counts, not this one), or taken over by a retry.
  const record = await readKey(claim.userId, claim.keyHash);
  return record?.state === 'completed' && record.token === claim.token ? answerFrom(record.answer, req, false) : result;
}

/** A stored answer given to this request: marked replayed when it was another request's. */
function answerFrom(answer: StoredAnswer, req: IdempotentRequest, replayed = true): APIGatewayProxyResult {
  return {
    statusCode: answer.status,
    headers: {
      ...req.freshHeaders,
      'x-request-id': req.requestId,
      ...answer.headers,
      ...(replayed ? { [REPLAYED_HEADER]: 'true' } : {}),
    },
    body: answer.body,
  };
}

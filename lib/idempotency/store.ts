/**
 * The stored side of `Idempotency-Key` (docs/api.md "Idempotency"): one item per caller and key,
 * claimed with a conditional put before the route runs, completed with the answer afterwards, or,
 * for a route that commits its change in one transaction, completed BY that transaction
 * (completionItem), so the change and its answer land together or not at all.
 * DynamoDB's TTL removes it 24 hours after the claim (TTL deletes lag, so an expired item still
 * present counts as absent).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../store/client.ts';
import * as keys from '../store/key-builders.ts';
import { ENTITY } from '../store/keys.ts';
import { TTL_ATTRIBUTE } from '../store/table.ts';
import type { TransactItem } from '../store/transact.ts';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyRecord =
  | { state: 'in_progress'; fingerprint: string; lockedUntil: number }
  /** `token`: the claim that completed it (a request recognises its own committed answer). */
  | { state: 'completed'; fingerprint: string; answer: StoredAnswer; token: string };

export interface Claim {
  userId: string;
  keyHash: string;
  fingerprint: string;
  /** Epoch ms after which a claim that never completed (a crashed function) may be taken over. */
  lockedUntil: number;
  /** This claim's own id, so only its owner completes or releases it. */
  token: string;
}

const nowSeconds = (ms: number) => Math.floor(ms / 1000);

/** true = this request owns the key and runs; false = someone else holds or answered it. */
export async function claimKey(claim: Claim, now = Date.now()): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.idempotency(claim.userId, claim.keyHash),
          entity: ENTITY.idempotency,
          state: 'in_progress',
          fingerprint: claim.fingerprint,
          locked_until: claim.lockedUntil,
          token: claim.token,
          [TTL_ATTRIBUTE]: nowSeconds(now) + IDEMPOTENCY_TTL_SECONDS,
        },
        ConditionExpression:
          'attribute_not_exists(PK) OR #ttl < :nowS OR (#state = :inProgress AND locked_until < :nowMs)',
        ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE, '#state': 'state' },
        ExpressionAttributeValues: { ':nowS': nowSeconds(now), ':nowMs': now, ':inProgress': 'in_progress' },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

export async function readKey(
  userId: string,
  keyHash: string,
  now = Date.now(),
): Promise<IdempotencyRecord | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.idempotency(userId, keyHash), ConsistentRead: true }),
  );
  if (!Item || (Item[TTL_ATTRIBUTE] as number) < nowSeconds(now)) return undefined;
  if (Item['state'] === 'completed') {
    return {
      state: 'completed',
      fingerprint: Item['fingerprint'] as string,
      answer: JSON.parse(Item['answer'] as string) as StoredAnswer,
      token: Item['token'] as string,
    };
  }
  return {
    state: 'in_progress',
    fingerprint: Item['fingerprint'] as string,
    lockedUntil: Item['locked_until'] as number,
  };
}

/**
 * Only the claim's owner, and only while the claim runs: an answer that a transaction already
 * stored (completionItem) is never overwritten or released by what the request answers after it.
 */
const stillOwned = (claim: Claim, values: Record<string, unknown> = {}, state = 'in_progress') => ({
  ConditionExpression: '#token = :token AND #state = :inProgress',
  ExpressionAttributeNames: { '#token': 'token', '#state': 'state' },
  ExpressionAttributeValues: { ':token': claim.token, ':inProgress': state, ...values },
});

/** The answer stored while the claim runs; `amend`: replacing the one its own completion stored. */
const completion = (claim: Claim, answer: StoredAnswer, amend = false) => ({
  TableName: tableName(),
  Key: keys.idempotency(claim.userId, claim.keyHash),
  UpdateExpression: 'SET #state = :completed, answer = :answer REMOVE locked_until',
  ...stillOwned(
    claim,
    { ':completed': 'completed', ':answer': JSON.stringify(answer) },
    amend ? 'completed' : undefined,
  ),
});

/**
 * The completion as an item of the route's own transaction: the change commits only with its
 * answer, and only while this claim owns the key (a retry that took the key over after the
 * claim's lock ran out makes this request's late transaction fail as a whole).
 */
export const completionItem = (claim: Claim, answer: StoredAnswer): TransactItem => ({
  Update: completion(claim, answer),
});

/**
 * A later change of the same request amends the answer its first transaction stored (a route
 * whose answer grows with a second step, as moderation's closed reports): only this claim's
 * completed answer, in that change's own transaction.
 */
export const amendmentItem = (claim: Claim, answer: StoredAnswer): TransactItem => ({
  Update: completion(claim, answer, true),
});

/** Stores the answer; false when the claim no longer runs (taken over, or completed by its own transaction). */
export async function completeKey(claim: Claim, answer: StoredAnswer): Promise<boolean> {
  try {
    await db().send(new UpdateCommand(completion(claim, answer)));
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** Gives the key back (the route failed in a way worth retrying); false when the claim no longer runs. */
export async function releaseKey(claim: Claim): Promise<boolean> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.idempotency(claim.userId, claim.keyHash),
        ...stillOwned(claim),
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/**
 * The stored side of `Idempotency-Key` (docs/api.md "Idempotency"): one item per caller and key,
 * claimed with a conditional put before the route runs, completed with the answer afterwards.
 * DynamoDB's TTL removes it 24 hours after the claim (TTL deletes lag, so an expired item still
 * present counts as absent).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../store/client.ts';
import { ENTITY, keys } from '../store/keys.ts';
import { TTL_ATTRIBUTE } from '../store/table.ts';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyRecord =
  | { state: 'in_progress'; fingerprint: string; lockedUntil: number }
  | { state: 'completed'; fingerprint: string; answer: StoredAnswer };

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
        ConditionExpression: 'attribute_not_exists(PK) OR #ttl < :nowS OR (#state = :inProgress AND locked_until < :nowMs)',
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

export async function readKey(userId: string, keyHash: string, now = Date.now()): Promise<IdempotencyRecord | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.idempotency(userId, keyHash), ConsistentRead: true }));
  if (!Item || (Item[TTL_ATTRIBUTE] as number) < nowSeconds(now)) return undefined;
  if (Item['state'] === 'completed') {
    return { state: 'completed', fingerprint: Item['fingerprint'] as string, answer: JSON.parse(Item['answer'] as string) as StoredAnswer };
  }
  return { state: 'in_progress', fingerprint: Item['fingerprint'] as string, lockedUntil: Item['locked_until'] as number };
}

/** Stores the answer; false when the claim was lost meanwhile (taken over after its lock ran out). */
export async function completeKey(claim: Claim, answer: StoredAnswer): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.idempotency(claim.userId, claim.keyHash),
        UpdateExpression: 'SET #state = :completed, answer = :answer REMOVE locked_until',
        ConditionExpression: '#token = :token',
        ExpressionAttributeNames: { '#state': 'state', '#token': 'token' },
        ExpressionAttributeValues: { ':completed': 'completed', ':answer': JSON.stringify(answer), ':token': claim.token },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** Gives the key back (the route failed in a way worth retrying); only the claim's owner can. */
export async function releaseKey(claim: Claim): Promise<void> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.idempotency(claim.userId, claim.keyHash),
        ConditionExpression: '#token = :token',
        ExpressionAttributeNames: { '#token': 'token' },
        ExpressionAttributeValues: { ':token': claim.token },
      }),
    );
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
  }
}

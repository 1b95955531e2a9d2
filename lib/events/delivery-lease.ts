import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { notFound } from '../core/errors.ts';
import { nowIso } from '../core/time.ts';
import { db, tableName } from '../store/client.ts';
import { keys, withoutKeys } from '../store/keys.ts';
import { readDelivery, type DeliveryRecord, type DeliveryStatus } from './deliveries.ts';
import { delayAfter, DELIVERY_LEASE_MS, retryDelays } from './schedule.ts';
import { buildUpdate } from '../store/update-expression.ts';

/**
 * The life of a delivery record across attempts. An attempt is made only under a lease (one
 * conditional update), so two copies of a message never post at the same time, and only the
 * lease holder can record the attempt, so each attempt is counted once.
 */

/** As long as the delivery function may run (schedule.ts): a live attempt is never overtaken. */
const LEASE_MS = DELIVERY_LEASE_MS;

const key = (agentId: string, deliveryId: string) => keys.delivery(agentId, deliveryId);

export type Claim =
  | { kind: 'claimed'; record: DeliveryRecord; token: string }
  /** Nothing to do for this message: no record, already settled, or another message carries it. */
  | { kind: 'drop'; reason: string }
  /** This message's own attempt is still running elsewhere; look again later. */
  | { kind: 'busy'; retryInSeconds: number };

export async function claimDelivery(agentId: string, deliveryId: string, messageId: string, nowMs = Date.now()): Promise<Claim> {
  const token = randomUUID();
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key(agentId, deliveryId),
        ConditionExpression:
          '#status = :pending AND (attribute_not_exists(lease_until) OR lease_until < :now) AND (attribute_not_exists(owner_message) OR owner_message = :mid)',
        UpdateExpression: 'SET lease_until = :until, lease_token = :token, owner_message = :mid',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'pending', ':now': nowMs, ':until': nowMs + LEASE_MS, ':token': token, ':mid': messageId },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { kind: 'claimed', record: withoutKeys(Attributes ?? {}) as unknown as DeliveryRecord, token };
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    const old = err.Item as Record<string, unknown> | undefined;
    if (!old) return { kind: 'drop', reason: 'no delivery record' };
    if (old['status'] !== 'pending') return { kind: 'drop', reason: `already ${String(old['status'])}` };
    if (old['owner_message'] !== undefined && old['owner_message'] !== messageId) return { kind: 'drop', reason: 'another message carries this delivery' };
    const until = Number(old['lease_until'] ?? nowMs);
    return { kind: 'busy', retryInSeconds: Math.max(1, Math.ceil((until - nowMs) / 1000)) };
  }
}

export type AttemptResult = { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string };

export interface Settled {
  status: DeliveryStatus;
  /** Set when another attempt is due: seconds until it. */
  retryInSeconds?: number;
}

/** Records one attempt and decides what comes next; only the lease holder can write it. */
export async function recordAttempt(claim: { record: DeliveryRecord; token: string }, result: AttemptResult, nowMs = Date.now()): Promise<Settled | undefined> {
  const { record, token } = claim;
  const attempts = record.attempts + 1;
  let settled: Settled;
  if (result.ok) settled = { status: 'succeeded' };
  else if (attempts >= record.max_attempts) settled = { status: 'failed' };
  else settled = { status: 'pending', retryInSeconds: delayAfter(attempts) ?? retryDelays().at(-1) ?? 0 };
  const nextAttemptAt = settled.retryInSeconds === undefined ? null : new Date(nowMs + settled.retryInSeconds * 1000).toISOString();
  const written = await settle(record, token, {
    status: settled.status,
    attempts,
    last_status_code: result.statusCode,
    last_error: result.ok ? null : result.error,
    next_attempt_at: nextAttemptAt,
  });
  return written ? settled : undefined;
}

/** Ends a delivery without an attempt (webhook no longer enabled, event expired). */
export async function abandonDelivery(claim: { record: DeliveryRecord; token: string }, reason: string): Promise<void> {
  await settle(claim.record, claim.token, { status: 'failed', last_error: reason, next_attempt_at: null });
}

async function settle(record: DeliveryRecord, token: string, fields: Partial<DeliveryRecord>): Promise<boolean> {
  const update = buildUpdate(
    { set: { ...fields, updated_at: nowIso() }, remove: ['lease_until', 'lease_token'] },
    { condition: 'lease_token = :token', values: { ':token': token } },
  );
  try {
    await db().send(new UpdateCommand({ TableName: tableName(), Key: key(record.agent_id, record.id), ...update }));
    return true;
  } catch (err) {
    // The lease ran out and someone else took over: this attempt's outcome is theirs to write.
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/**
 * A manual retry: the record goes back to pending with one more attempt allowed, and the message
 * that will carry it is not known yet (any older copy still in the queue is dropped on arrival).
 */
export async function resetForRetry(agentId: string, deliveryId: string): Promise<DeliveryRecord> {
  const record = await readDelivery(agentId, deliveryId);
  if (!record) throw notFound('Delivery');
  const now = nowIso();
  const maxAttempts = Math.max(record.max_attempts, record.attempts + 1);
  const { Attributes } = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key(agentId, deliveryId),
      ConditionExpression: 'attribute_exists(PK)',
      UpdateExpression: 'SET #status = :pending, max_attempts = :max, next_attempt_at = :now, updated_at = :now REMOVE owner_message',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pending': 'pending', ':max': maxAttempts, ':now': now },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return withoutKeys(Attributes ?? {}) as unknown as DeliveryRecord;
}

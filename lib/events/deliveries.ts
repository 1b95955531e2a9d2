import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../core/time.ts';
import { db, tableName } from '../store/client.ts';
import { ENTITY, keys, withoutKeys } from '../store/keys.ts';
import { scheduledAttempts } from './schedule.ts';
import { expiresAt, type ServiceEvent } from './types.ts';

/**
 * Delivery records: one per (event, agent), whatever the number of stream records or SQS copies
 * that mention it, because the id is derived from the event id and the record is created
 * conditionally. Attempts and their lease: delivery-lease.ts.
 */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryRecord {
  id: string;
  event_id: string;
  event_type: string;
  agent_id: string;
  status: DeliveryStatus;
  attempts: number;
  /** Attempts allowed before the record turns `failed`: the schedule's length, or one more after a manual retry. */
  max_attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  /** The SQS message id that carries this delivery; other copies are dropped. */
  owner_message?: string;
  lease_token?: string;
  lease_until?: number;
}

export type DeliveryView = Pick<DeliveryRecord, 'id' | 'event_id' | 'event_type' | 'status' | 'attempts' | 'last_status_code' | 'last_error' | 'next_attempt_at' | 'created_at'>;

export const deliveryIdFor = (eventId: string): string => `dlv_${eventId.slice('evt_'.length)}`;

const key = (agentId: string, deliveryId: string) => keys.delivery(agentId, deliveryId);

export function toView(record: DeliveryRecord): DeliveryView {
  const { id, event_id, event_type, status, attempts, last_status_code, last_error, next_attempt_at, created_at } = record;
  return { id, event_id, event_type, status, attempts, last_status_code, last_error, next_attempt_at, created_at };
}

export async function readDelivery(agentId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: key(agentId, deliveryId), ConsistentRead: true }));
  return Item ? (withoutKeys(Item) as unknown as DeliveryRecord) : undefined;
}

/**
 * Creates the record of an event's delivery unless it exists; returns the record either way. The
 * relay's delivery of an event has the id derived from the event's; a replay (replay.ts) passes
 * its own id, so the same event can be delivered again as another record.
 */
export async function ensureDelivery(event: ServiceEvent, deliveryId: string = deliveryIdFor(event.id)): Promise<{ record: DeliveryRecord; created: boolean }> {
  const now = nowIso();
  const record: DeliveryRecord = {
    id: deliveryId,
    event_id: event.id,
    event_type: event.type,
    agent_id: event.agent_id,
    status: 'pending',
    attempts: 0,
    max_attempts: scheduledAttempts(),
    last_status_code: null,
    last_error: null,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
  };
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...key(event.agent_id, record.id), entity: ENTITY.delivery, ...record, expires_at: expiresAt(event.created_at) },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return { record, created: true };
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    const existing = await readDelivery(event.agent_id, record.id);
    if (!existing) throw new Error('delivery record vanished after a conditional failure');
    return { record: existing, created: false };
  }
}

export interface DeliveryPage {
  data: DeliveryView[];
  next_cursor: string | null;
}

/** Newest first (delivery ids follow event ids, which sort by the agent's feed position); `cursor` is the last id seen. */
export async function listDeliveries(agentId: string, cursor: string | undefined, limit: number): Promise<DeliveryPage> {
  const prefix = keys.deliveryPrefix;
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
      ExpressionAttributeValues: { ':pk': key(agentId, '').PK, ':lo': prefix, ':hi': cursor ? `${prefix}${cursor}` : `${prefix}\uffff` },
      ScanIndexForward: false,
      // BETWEEN includes the cursor itself; one more than the page tells whether another page exists.
      Limit: limit + 2,
      ConsistentRead: true,
    }),
  );
  const records = Items.map((i) => withoutKeys(i) as unknown as DeliveryRecord).filter((r) => r.id !== cursor);
  const page = records.slice(0, limit);
  return { data: page.map(toView), next_cursor: records.length > limit ? (page.at(-1)?.id ?? null) : null };
}

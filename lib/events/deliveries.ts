/**
 * Delivery records: one per (event, agent), whatever the number of stream records or SQS copies
 * that mention it, because the id is derived from the event id and the record is created
 * conditionally. The record carries the event itself, so an attempt needs no read of the feed,
 * and its attempt history. Attempts: delivery-attempt.ts.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../core/time.ts';
import { batchGet, batchWrite, keyString } from '../store/batch.ts';
import { db, tableName } from '../store/client.ts';
import { ENTITY, keys, withoutKeys } from '../store/keys.ts';
import { INDEXES } from '../store/table.ts';
import { type AttemptEntry, attemptList } from './attempt-log.ts';
import { scheduledAttempts } from './schedule.ts';
import { type DeliveryStatus, expiresAt, type ServiceEvent } from './types.ts';

export type { DeliveryStatus };

export interface DeliveryRecord {
  id: string;
  event_id: string;
  event_type: string;
  agent_id: string;
  status: DeliveryStatus;
  /** Every attempt made (scheduled, manual and duplicate copies alike): the attempt history's numbering. */
  attempts: number;
  /** Attempts that did not use up the retry schedule: manual retries and duplicate SQS copies. */
  extra_attempts?: number;
  /** Scheduled attempts allowed: the schedule's length when the record was made. */
  max_attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  /** The event as delivered; absent on records made before it was carried (read from the feed then). */
  event?: ServiceEvent;
  /** The SQS message id that recorded the latest attempt (tells a message received twice from a copy). */
  carrier?: string;
  /** Attempt history keyed by attemptLogKey (a map, so one update can add an entry and drop the oldest). */
  attempt_log?: Record<string, AttemptEntry>;
}

export type DeliveryView = Pick<
  DeliveryRecord,
  | 'id'
  | 'event_id'
  | 'event_type'
  | 'status'
  | 'attempts'
  | 'last_status_code'
  | 'last_error'
  | 'next_attempt_at'
  | 'created_at'
>;

/** The single-delivery read: the list's fields, with `attempts` as the history and the count beside it. */
export type DeliveryDetail = Omit<DeliveryView, 'attempts'> & { attempt_count: number; attempts: AttemptEntry[] };

export const deliveryIdFor = (eventId: string): string => `dlv_${eventId.slice('evt_'.length)}`;

const key = (agentId: string, deliveryId: string) => keys.delivery(agentId, deliveryId);

/** The index attribute that goes with a status (name and value); every write of `status` writes it too. */
export function statusPlacement(agentId: string, status: DeliveryStatus): { name: string; value: string } {
  const [[name, value]] = Object.entries(keys.deliveryStatusPlacement(agentId, status)) as [[string, string]];
  return { name, value };
}

/** Scheduled attempts made so far (the rest were manual or duplicates). */
export const scheduledMade = (record: Pick<DeliveryRecord, 'attempts' | 'extra_attempts'>): number =>
  record.attempts - (record.extra_attempts ?? 0);

export function toView(record: DeliveryRecord): DeliveryView {
  const { id, event_id, event_type, status, attempts, last_status_code, last_error, next_attempt_at, created_at } =
    record;
  return { id, event_id, event_type, status, attempts, last_status_code, last_error, next_attempt_at, created_at };
}

export function toDetail(record: DeliveryRecord): DeliveryDetail {
  const { attempts, ...view } = toView(record);
  return { ...view, attempt_count: attempts, attempts: attemptList(record.attempt_log) };
}

export const deliveryFromItem = (item: Record<string, unknown>): DeliveryRecord => {
  const { [INDEXES.deliveriesByStatus.partitionKey]: _index, expires_at: _ttl, ...rest } = withoutKeys(item);
  return rest as unknown as DeliveryRecord;
};

export async function readDelivery(agentId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: key(agentId, deliveryId), ConsistentRead: true }),
  );
  return Item ? deliveryFromItem(Item) : undefined;
}

/** A new record for an event (not written); a replay (replay.ts) gives its own id, so the same event can be delivered again. */
export function newDelivery(
  event: ServiceEvent,
  deliveryId: string = deliveryIdFor(event.id),
  now = nowIso(),
): DeliveryRecord {
  return {
    id: deliveryId,
    event_id: event.id,
    event_type: event.type,
    agent_id: event.agent_id,
    status: 'pending',
    attempts: 0,
    extra_attempts: 0,
    max_attempts: scheduledAttempts(),
    last_status_code: null,
    last_error: null,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
    event,
    attempt_log: {},
  };
}

/** The stored item of a new record, with its index attribute and expiry. */
export function deliveryItem(record: DeliveryRecord): Record<string, unknown> {
  return {
    ...key(record.agent_id, record.id),
    entity: ENTITY.delivery,
    ...record,
    ...keys.deliveryStatusPlacement(record.agent_id, record.status),
    expires_at: expiresAt(record.event?.created_at ?? record.created_at),
  };
}

/**
 * Creates the record of an event's delivery unless it exists; returns the record either way. The
 * relay's delivery of an event has the id derived from the event's; a replay (replay.ts) passes
 * its own id, so the same event can be delivered again as another record.
 */
export async function ensureDelivery(
  event: ServiceEvent,
  deliveryId: string = deliveryIdFor(event.id),
): Promise<{ record: DeliveryRecord; created: boolean }> {
  const record = newDelivery(event, deliveryId);
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: deliveryItem(record),
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

/** Where the relay's record for an event lives (the id derived from the event's). */
export const relayDeliveryKey = (event: Pick<ServiceEvent, 'id' | 'agent_id'>) =>
  key(event.agent_id, deliveryIdFor(event.id));

/**
 * Writes new records in BatchWriteItem calls of 25, unconditionally: the relay calls it only for
 * records its strongly consistent read of the same batch found missing (docs/events.md, "Relay",
 * says why no other writer can have made one since).
 */
export async function createDeliveries(records: readonly DeliveryRecord[]): Promise<void> {
  await batchWrite(records.map((record) => ({ put: deliveryItem(record) })));
}

export interface DeliveryPage {
  data: DeliveryView[];
  next_cursor: string | null;
}

/**
 * Newest first (delivery ids follow event ids, which sort by the agent's feed position); `cursor`
 * is the last id seen. With `status`, the DeliveriesByStatus index gives the keys and one
 * BatchGetItem the records: O(limit) items either way.
 */
export async function listDeliveries(
  agentId: string,
  cursor: string | undefined,
  limit: number,
  status?: DeliveryStatus,
): Promise<DeliveryPage> {
  return status ? listByStatus(agentId, status, cursor, limit) : listNewestFirst(agentId, cursor, limit);
}

async function listNewestFirst(agentId: string, cursor: string | undefined, limit: number): Promise<DeliveryPage> {
  const prefix = keys.deliveryPrefix;
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
      ExpressionAttributeValues: {
        ':pk': key(agentId, '').PK,
        ':lo': prefix,
        ':hi': cursor ? `${prefix}${cursor}` : `${prefix}\uffff`,
      },
      ScanIndexForward: false,
      // BETWEEN includes the cursor itself; one more than the page tells whether another page exists.
      Limit: limit + 2,
      ConsistentRead: true,
    }),
  );
  const records = Items.map(deliveryFromItem).filter((r) => r.id !== cursor);
  const page = records.slice(0, limit);
  return { data: page.map(toView), next_cursor: records.length > limit ? (page.at(-1)?.id ?? null) : null };
}

async function listByStatus(
  agentId: string,
  status: DeliveryStatus,
  cursor: string | undefined,
  limit: number,
): Promise<DeliveryPage> {
  const index = INDEXES.deliveriesByStatus;
  const partition = statusPlacement(agentId, status).value;
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: index.name,
      KeyConditionExpression: '#p = :p',
      ExpressionAttributeNames: { '#p': index.partitionKey },
      ExpressionAttributeValues: { ':p': partition },
      ScanIndexForward: false,
      Limit: limit + 1,
      ...(cursor ? { ExclusiveStartKey: { ...key(agentId, cursor), [index.partitionKey]: partition } } : {}),
    }),
  );
  const pageKeys = Items.slice(0, limit).map((i) => ({ PK: i['PK'] as string, SK: i['SK'] as string }));
  const found = await batchGet(pageKeys, { consistent: true });
  // The index trails the table by a moment: a record whose status moved on since is left out.
  const records = pageKeys
    .map((k) => found.get(keyString(k)))
    .filter((i) => i !== undefined)
    .map(deliveryFromItem);
  const lastKey = pageKeys.at(-1);
  return {
    data: records.filter((r) => r.status === status).map(toView),
    next_cursor: Items.length > limit && lastKey ? lastKey.SK.slice(keys.deliveryPrefix.length) : null,
  };
}

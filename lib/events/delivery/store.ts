/**
 * The delivery room's DynamoDB calls: delivery records read, created once (conditionally, or in
 * batches the relay found missing) and listed newest first or by status. Attempts change records
 * through conditional updates (take-attempt.ts, attempt-outcome.ts).
 */

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { InvariantError } from '../../core/errors.ts';
import { batchGet, batchWrite, keyString } from '../../store/batch.ts';
import { db, tableName } from '../../store/client.ts';
import { keys } from '../../store/keys.ts';
import { INDEXES } from '../../store/table.ts';
import type { ServiceEvent } from '../feed/event.ts';
import {
  type DeliveryRecord,
  type DeliveryStatus,
  type DeliveryView,
  deliveryFromItem,
  deliveryIdFor,
  deliveryItem,
  newDelivery,
  statusPlacement,
  toView,
} from './record.ts';

const key = (agentId: string, deliveryId: string) => keys.delivery(agentId, deliveryId);

export async function readDelivery(agentId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: key(agentId, deliveryId), ConsistentRead: true }),
  );
  return Item ? deliveryFromItem(Item) : undefined;
}

/**
 * Creates the record of an event's delivery unless it exists; returns the record either way. The
 * relay's delivery of an event has the id derived from the event's; a replay (replay/replay-job.ts) passes
 * its own id, so the same event can be delivered again as another record.
 */
export async function ensureDelivery(
  event: ServiceEvent,
  deliveryId: string = deliveryIdFor(event.id),
  destinationId?: string,
): Promise<{ record: DeliveryRecord; created: boolean }> {
  const record = newDelivery(event, deliveryId, undefined, destinationId);
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
    if (!existing) throw new InvariantError('delivery record vanished after a conditional failure');
    return { record: existing, created: false };
  }
}

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

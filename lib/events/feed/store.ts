/**
 * The feed room's DynamoDB calls: tickets on the agent's counter, gap markers, and the reads of
 * slots (a page, one item, the feed's edges) that the reader and the start points decide on.
 */

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AgentRecord } from '../../agents/model.ts';
import type { TraceContext } from '../../core/trace-context.ts';
import { db, tableName } from '../../store/client.ts';
import * as keys from '../../store/key-builders.ts';
import { ENTITY } from '../../store/keys.ts';
import { type TransactItem, type TransactResult, transactWrite } from '../../store/transact.ts';
import { expiresAt, type ServiceEvent } from './event.ts';
import { afterPosition, eventIdAt, lastKeyAt, positionOf } from './position.ts';

const HIGHEST = '\uffff';

export interface Ticket {
  position: number;
  /** The agent item as the ticket left it (webhook state for the event's `deliver` flag). */
  agent: AgentRecord;
}

/** The agent's next slot, or undefined when there is no such agent (or it was deleted). */
export async function takeTicket(agentId: string, nowMs = Date.now()): Promise<Ticket | undefined> {
  for (;;) {
    try {
      const { Attributes } = await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.agent(agentId),
          UpdateExpression: 'SET feed_ticket_at = :now ADD feed_seq :one',
          ConditionExpression:
            'attribute_exists(PK) AND attribute_exists(feed_seq) AND attribute_not_exists(deleted_at)',
          ExpressionAttributeValues: { ':now': nowMs, ':one': 1 },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const agent = Attributes as AgentRecord;
      return { position: agent.feed_seq!, agent };
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
      // No such agent, or a deleted one (DELETE /agents/:id): its feed takes no more events.
      if (!err.Item || err.Item['deleted_at'] !== undefined) return undefined;
      await startCounter(agentId);
    }
  }
}

/**
 * An agent created before positions existed: its counter starts at its newest event, whose
 * position is that event's creation time in ms, so new slots sort after every old event. Old
 * events (positions up to `feed_base`) are not numbered one by one and are never waited for.
 */
async function startCounter(agentId: string): Promise<void> {
  const base = await newestPosition(agentId);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.agent(agentId),
        UpdateExpression: 'SET feed_seq = :base, feed_base = :base',
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(feed_seq)',
        ExpressionAttributeValues: { ':base': base },
      }),
    );
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err; // another writer started it
  }
}

/** Fills an empty slot with a gap marker; false when the slot was already filled (by its event, most likely). */
export async function fillGap(agentId: string, position: number, nowMs = Date.now()): Promise<boolean> {
  const id = eventIdAt(agentId, position);
  const createdAt = new Date(nowMs).toISOString();
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.event(agentId, id),
          entity: ENTITY.feedGap,
          id,
          agent_id: agentId,
          created_at: createdAt,
          expires_at: expiresAt(createdAt),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** The position of the newest event in the feed (0 when empty). */
async function newestPosition(agentId: string): Promise<number> {
  const newest = (await edgeSlot(agentId, 'newest'))?.['id'];
  return typeof newest === 'string' ? positionOf(newest) : 0;
}

/** The slots after `after` up to position `upTo` (the feed's end when undefined), at most `limit`. */
export async function querySlots(
  agentId: string,
  after: string | undefined,
  upTo: number | undefined,
  limit: number,
): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': keys.event(agentId, '').PK,
        ':from': keys.event(agentId, after ?? '').SK,
        ':to': upTo === undefined ? keys.event(agentId, HIGHEST).SK : lastKeyAt(agentId, upTo),
      },
      // BETWEEN is inclusive: one more item than asked, and the cursor itself is dropped.
      Limit: limit + 1,
      ConsistentRead: true,
    }),
  );
  return Items.filter((item) => item['id'] !== after).slice(0, limit);
}

/** One slot's item, whatever fills it (event or gap marker). */
export async function getFeedItem(agentId: string, eventId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.event(agentId, eventId), ConsistentRead: true }),
  );
  return Item;
}

/** The oldest or newest item (event or gap marker) of the feed: its id and created_at. */
export async function edgeSlot(
  agentId: string,
  edge: 'oldest' | 'newest',
): Promise<Record<string, unknown> | undefined> {
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.event(agentId, '').PK, ':prefix': keys.eventPrefix },
      ProjectionExpression: 'id, created_at',
      ScanIndexForward: edge === 'oldest',
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  return Items[0];
}

/** The first item at `position` or after it: its id and created_at. */
export async function firstSlotFrom(agentId: string, position: number): Promise<Record<string, unknown> | undefined> {
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': keys.event(agentId, '').PK,
        ':from': keys.event(agentId, afterPosition(position - 1)).SK,
        ':to': keys.event(agentId, HIGHEST).SK,
      },
      ProjectionExpression: 'id, created_at',
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  return Items[0];
}

/**
 * The outbox's transaction (outbox.ts): the state change, one row per event in its taken slot (only
 * if the slot is still empty), and the items that commit along, last.
 */
/** An event row as the outbox writes it. */
export interface EventRow {
  event: ServiceEvent;
  deliver: boolean;
  webhookFiltered?: boolean;
  /** The trace of the request that caused it (lib/core/trace-context.ts). */
  trace?: TraceContext;
}

export function commitEventRows(
  change: TransactItem[],
  rows: readonly EventRow[],
  along: TransactItem[],
): Promise<TransactResult> {
  const puts = rows.map(({ event, deliver, webhookFiltered, trace }) => ({
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.event(event.agent_id, event.id),
        entity: ENTITY.event,
        ...event,
        deliver,
        // The webhook's filter refused it when it was made (outbox.ts): the relay makes no webhook delivery of it.
        ...(webhookFiltered ? { webhook_filtered: true } : {}),
        ...(trace ? { trace } : {}),
        expires_at: expiresAt(event.created_at),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  }));
  return transactWrite([...change, ...puts, ...along]);
}

/** A route that writes nothing else commits its `Idempotency-Key` answer alone (POST …/filters/test). */
export async function commitAnswerAlone(along: TransactItem[]): Promise<void> {
  if (along.length > 0) await transactWrite(along);
}

import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AgentRecord } from '../agents/model.ts';
import { validationError } from '../core/errors.ts';
import { idAt, sortablePrefix, sortValueOf } from '../core/ids.ts';
import { db, tableName } from '../store/client.ts';
import { ENTITY, keys } from '../store/keys.ts';
import { expiresAt } from './types.ts';

/**
 * Feed positions (docs/events.md, "The feed position"). Every event of an agent's feed sits in
 * a slot numbered by the agent's ticket counter (`feed_seq` on the agent item, one atomic ADD
 * per ticket: no writer ever waits for or retries against another). A slot is filled exactly
 * once, with a conditional put: by its writer's event, or, when the writer gave up or died, by a
 * gap marker. Readers walk the slots in order and never pass an empty one, so no event can
 * appear behind a cursor already handed out; an empty slot older than GAP_GRACE_MS is filled
 * with a gap marker by the reader that finds it, and a writer that comes back later finds its
 * slot taken and starts again with a new ticket.
 *
 * An event's id is its slot: the position in its sort characters, the rest derived from the
 * agent and the position, so a writer and a gap-filling reader name the same item.
 */

/** How old an empty slot must be before a reader fills it: far longer than any live commit takes. */
export const GAP_GRACE_MS = 30_000;

export const positionOf = (eventId: string): number => sortValueOf(eventId);

export function eventIdAt(agentId: string, position: number): string {
  return idAt('evt', position, createHash('sha256').update(`${agentId}:${position}`).digest());
}

/**
 * A cursor after every slot at `position` or below: the highest id that sorts at `position` (no
 * event id is greater). A stream's start point (start-point.ts) is one of these.
 */
export const afterPosition = (position: number): string =>
  `${sortablePrefix('evt', Math.max(0, position))}${'Z'.repeat(16)}`;

/**
 * Refuses a cursor that is not a place in this agent's feed (docs/events.md, "Cursors"): past a
 * numbered agent's counter, or at a numbered position but neither that slot's id nor a position
 * cursor (afterPosition). Ids at or below `feed_base` are from before positions and any id sorts
 * there. The reader relies on this: a forged id that sorts just below a real slot would hand it
 * that slot again, behind the position it expects.
 */
export function checkFeedCursor(agent: AgentRecord, cursor: string | undefined, path: string): void {
  const head = agent.feed_seq;
  if (cursor === undefined || head === undefined) return;
  const position = positionOf(cursor);
  if (agent.feed_base !== undefined && position <= agent.feed_base) return;
  const problem =
    position > head
      ? 'Past the newest event of this agent: pass a next_cursor or an event id this agent was given.'
      : cursor !== eventIdAt(agent.id, position) && cursor !== afterPosition(position)
        ? "Not an event of this agent: pass a next_cursor or an event id from this agent's feed."
        : undefined;
  if (problem) throw validationError([{ path, message: problem }], `The ${path} cursor is not valid for this agent.`);
}

/** The highest sort key a slot at `position` or below can have in the agent's partition. */
export const lastKeyAt = (agentId: string, position: number): string =>
  keys.event(agentId, `${sortablePrefix('evt', position)}\uffff`).SK;

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
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.event(agentId, '').PK, ':prefix': keys.eventPrefix },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const newest = Items[0]?.['id'];
  return typeof newest === 'string' ? positionOf(newest) : 0;
}

/**
 * The push room's DynamoDB calls: an agent's connections (`keys.pushConnections`: one item, an
 * attribute per slot `s0`…`s9` holding one open WebSocket connection and the cursor of what it
 * was sent, so one conditional write moves the cursors of a whole fan-out) and each connection's
 * lookup item (`keys.pushConnection`: $default and $disconnect name only the connection).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { AgentRecord } from '../../agents/model.ts';
import { liveAgent } from '../../agents/store.ts';
import { rateLimited } from '../../core/errors.ts';
import { FUTURE_TOLERANCE_MS, PUSH } from '../../core/settings.ts';
import { batchGet, keyString } from '../../store/batch.ts';
import { db, tableName } from '../../store/client.ts';
import { conditionalDelete, conditionalUpdate } from '../../store/conditional.ts';
import * as keys from '../../store/key-builders.ts';
import { ENTITY } from '../../store/keys.ts';
import { transactWrite } from '../../store/transact.ts';

export interface PushSlot {
  agent_id: string;
  slot: number;
  connection_id: string;
  /** The last feed slot this connection was sent (an event's or a gap's id); absent: from the oldest. */
  cursor?: string;
  /** Epoch ms after which the connection cannot be open any more (API Gateway's 2 h cap, plus the skew bound). */
  held_until: number;
  /** The hash of the key that opened it (the API key item's id): each sync asks whether it still stands. */
  key_hash: string;
}

/** The attribute of a slot on the agent's connections item. */
const slotName = (slot: number) => `s${slot}`;

/** TTL (epoch seconds): an item left by connections whose $disconnect never came goes an hour after the last lapsed. */
const expiresAt = (heldUntil: number) => Math.ceil(heldUntil / 1000) + 3600;

/**
 * Takes `slot` for the connection: free, or held by a connection that cannot be open any more (or
 * by a clock beyond the skew bound). The lookup item commits with it, and only while the key that
 * opens it stands (not revoked: a revocation ends the connections it finds, and refuses the claims
 * it does not). False: the slot is held; 'key_revoked': the key was revoked meanwhile.
 */
export async function claimSlot(
  agentId: string,
  slot: number,
  connection: { connectionId: string; keyHash: string; cursor: string | undefined },
  nowMs: number,
): Promise<boolean | 'key_revoked'> {
  const { connectionId, keyHash, cursor } = connection;
  const heldUntil = nowMs + PUSH.maxConnectionMs + FUTURE_TOLERANCE_MS;
  const result = await transactWrite([
    {
      Update: {
        TableName: tableName(),
        Key: keys.pushConnections(agentId),
        UpdateExpression: 'SET #slot = :connection, entity = :entity, agent_id = :agent, expires_at = :expires',
        ConditionExpression: 'attribute_not_exists(#slot) OR #slot.held_until <= :now OR #slot.held_until > :ceiling',
        ExpressionAttributeNames: { '#slot': slotName(slot) },
        ExpressionAttributeValues: {
          ':connection': {
            connection_id: connectionId,
            key_hash: keyHash,
            held_until: heldUntil,
            ...(cursor === undefined ? {} : { cursor }),
          },
          ':entity': ENTITY.pushConnections,
          ':agent': agentId,
          ':expires': expiresAt(heldUntil),
          ':now': nowMs,
          ':ceiling': heldUntil + FUTURE_TOLERANCE_MS,
        },
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.pushConnection(connectionId),
          entity: ENTITY.pushConnection,
          agent_id: agentId,
          slot,
          // Every message of the connection counts against its key's rate, before it is even read.
          key_hash: keyHash,
          expires_at: expiresAt(heldUntil),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      ConditionCheck: {
        TableName: tableName(),
        Key: keys.apiKey(keyHash),
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(revokedAt)',
      },
    },
  ]);
  if (result.ok) return true;
  return result.reasons[2] === 'ConditionalCheckFailed' ? 'key_revoked' : false;
}

/** What a connection's lookup item holds: its agent, its slot and the key that opened it. */
export interface HeldConnection {
  agent_id: string;
  slot: number;
  /** Absent on a lookup written before the key was kept there: the slot names it too. */
  key_hash?: string;
}

/** The agent and slot a connection holds, or undefined (never connected, or closed). */
export async function readConnection(connectionId: string): Promise<HeldConnection | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.pushConnection(connectionId), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const keyHash = Item['key_hash'] as string | undefined;
  return {
    agent_id: Item['agent_id'] as string,
    slot: Item['slot'] as number,
    ...(keyHash ? { key_hash: keyHash } : {}),
  };
}

/** Every held slot of the agent (one GetItem: at most PUSH.connectionsPerAgent). */
export async function listSlots(agentId: string): Promise<PushSlot[]> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.pushConnections(agentId), ConsistentRead: true }),
  );
  return slotsOf(agentId, Item);
}

function slotsOf(agentId: string, item: Record<string, unknown> | undefined): PushSlot[] {
  if (!item) return [];
  return Array.from({ length: PUSH.connectionsPerAgent }, (_, slot) => slot).flatMap((slot) => {
    const held = item[slotName(slot)] as Omit<PushSlot, 'agent_id' | 'slot'> | undefined;
    return held ? [{ ...held, agent_id: agentId, slot }] : [];
  });
}

/** What a push to an agent starts from: its held slots, and its item (the feed's counter), read together. */
export interface PushTarget {
  slots: PushSlot[];
  /** Undefined when deleted (or never made): the feed reader then reads it itself, as it always does. */
  agent: AgentRecord | undefined;
}

/**
 * The push targets of a stream batch's agents: their connections items and agent items in one
 * strongly consistent BatchGetItem (per 50 agents) instead of two reads per agent. The agent item
 * serves as the feed reader's counter read (feed/reader.ts: the slots are queried after it).
 */
export async function readPushTargets(agentIds: readonly string[]): Promise<Map<string, PushTarget>> {
  const found = await batchGet(
    agentIds.flatMap((id) => [keys.pushConnections(id), keys.agent(id)]),
    { consistent: true },
  );
  return new Map(
    agentIds.map((id) => [
      id,
      {
        slots: slotsOf(id, found.get(keyString(keys.pushConnections(id)))),
        agent: liveAgent(found.get(keyString(keys.agent(id)))),
      },
    ]),
  );
}

export const readSlot = async (agentId: string, slot: number): Promise<PushSlot | undefined> =>
  (await listSlots(agentId)).find((s) => s.slot === slot);

/**
 * Moves the cursors of `slots` (one agent's, all at `from`) to `to` in one write, only if each is
 * still at `from` and still its connection's: of two sends that read from the same cursor, one
 * moves it, and a cursor never goes back. When the write is refused (another send moved one of
 * them), each is tried alone. Returns the slots whose cursor moved.
 */
export async function advanceCursors(slots: PushSlot[], from: string | undefined, to: string): Promise<PushSlot[]> {
  if (slots.length === 0) return [];
  if (await advance(slots, from, to)) return slots;
  if (slots.length === 1) return [];
  const moved = await Promise.all(slots.map((slot) => advance([slot], from, to)));
  return slots.filter((_, i) => moved[i]);
}

async function advance(slots: PushSlot[], from: string | undefined, to: string): Promise<boolean> {
  const names: Record<string, string> = { '#cursor': 'cursor' };
  const values: Record<string, unknown> = { ':to': to, ...(from === undefined ? {} : { ':from': from }) };
  const sets: string[] = [];
  const conditions: string[] = [];
  for (const [i, slot] of slots.entries()) {
    names[`#s${i}`] = slotName(slot.slot);
    values[`:c${i}`] = slot.connection_id;
    sets.push(`#s${i}.#cursor = :to`);
    conditions.push(
      `#s${i}.connection_id = :c${i}`,
      from === undefined ? `attribute_not_exists(#s${i}.#cursor)` : `#s${i}.#cursor = :from`,
    );
  }
  const result = await conditionalUpdate({
    Key: keys.pushConnections(slots[0]!.agent_id),
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
  return result.ok;
}

/** Frees the connection's slot (if it still holds it) and deletes its lookup item. */
export async function releaseSlot(agentId: string, slot: number, connectionId: string): Promise<void> {
  await conditionalUpdate({
    Key: keys.pushConnections(agentId),
    UpdateExpression: 'REMOVE #slot',
    ConditionExpression: '#slot.connection_id = :connection',
    ExpressionAttributeNames: { '#slot': slotName(slot) },
    ExpressionAttributeValues: { ':connection': connectionId },
  });
  await conditionalDelete({ Key: keys.pushConnection(connectionId) });
}

/**
 * Counts one message in the connection's window (PUSH.messageLimits.windowMs), refused
 * messages too, so the count says how long refusals have gone on: the current window's count plus
 * one, or a new window at `nowMs` (none yet, the last one over, or written by a clock beyond the
 * skew bound). One conditional write in the common case; `msLeft` is when the window ends.
 */
export async function countMessage(connectionId: string, nowMs: number): Promise<{ count: number; msLeft: number }> {
  const { windowMs } = PUSH.messageLimits;
  const key = keys.pushMessageLimit(connectionId);
  const common = {
    ':floor': nowMs - windowMs,
    ':ceiling': nowMs + FUTURE_TOLERANCE_MS,
    ':one': 1,
    ':entity': ENTITY.pushMessageLimit,
    ':expires': Math.ceil((nowMs + windowMs) / 1000) + 3600,
  };
  for (let attempt = 1; attempt <= 3; attempt++) {
    const counted = await conditionalUpdate({
      Key: key,
      UpdateExpression: 'SET entity = :entity, expires_at = :expires ADD window_count :one',
      ConditionExpression: 'window_start > :floor AND window_start <= :ceiling',
      ExpressionAttributeValues: common,
      ReturnValues: 'ALL_NEW',
    });
    if (counted.ok) {
      const item = counted.attributes!;
      return { count: item['window_count'] as number, msLeft: (item['window_start'] as number) + windowMs - nowMs };
    }
    const opened = await conditionalUpdate({
      Key: key,
      UpdateExpression: 'SET entity = :entity, expires_at = :expires, window_start = :now, window_count = :one',
      ConditionExpression: 'attribute_not_exists(window_start) OR window_start <= :floor OR window_start > :ceiling',
      ExpressionAttributeValues: { ...common, ':now': nowMs },
    });
    if (opened.ok) return { count: 1, msLeft: windowMs };
    // Another instance opened the window between our two writes: count in it.
  }
  throw rateLimited('Too many messages at once on this connection; send again in a moment.', 1);
}

/**
 * The push room's DynamoDB calls: an agent's connection slots (`keys.pushSlot`, one per open
 * WebSocket connection, holding what it was sent) and each connection's lookup item
 * (`keys.pushConnection`: $default and $disconnect name only the connection).
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { FUTURE_TOLERANCE_MS, PUSH } from '../../core/settings.ts';
import { db, tableName } from '../../store/client.ts';
import { conditionalDelete, conditionalUpdate } from '../../store/conditional.ts';
import { ENTITY, keys } from '../../store/keys.ts';
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

/** TTL (epoch seconds): a slot or lookup left by a connection whose $disconnect never came goes an hour after it lapsed. */
const expiresAt = (heldUntil: number) => Math.ceil(heldUntil / 1000) + 3600;

/**
 * Takes `slot` for the connection: free, or held by a connection that cannot be open any more (or
 * by a clock beyond the skew bound). The lookup item commits with it. False: the slot is held.
 */
export async function claimSlot(
  agentId: string,
  slot: number,
  connection: { connectionId: string; keyHash: string; cursor: string | undefined },
  nowMs: number,
): Promise<boolean> {
  const { connectionId, keyHash, cursor } = connection;
  const heldUntil = nowMs + PUSH.maxConnectionMs + FUTURE_TOLERANCE_MS;
  const result = await transactWrite([
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.pushSlot(agentId, slot),
          entity: ENTITY.pushSlot,
          agent_id: agentId,
          slot,
          connection_id: connectionId,
          key_hash: keyHash,
          ...(cursor === undefined ? {} : { cursor }),
          held_until: heldUntil,
          expires_at: expiresAt(heldUntil),
        },
        ConditionExpression: 'attribute_not_exists(held_until) OR held_until <= :now OR held_until > :ceiling',
        ExpressionAttributeValues: { ':now': nowMs, ':ceiling': heldUntil + FUTURE_TOLERANCE_MS },
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
          expires_at: expiresAt(heldUntil),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ]);
  return result.ok;
}

/** The agent and slot a connection holds, or undefined (never connected, or closed). */
export async function readConnection(connectionId: string): Promise<{ agent_id: string; slot: number } | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.pushConnection(connectionId), ConsistentRead: true }),
  );
  return Item ? { agent_id: Item['agent_id'] as string, slot: Item['slot'] as number } : undefined;
}

export async function readSlot(agentId: string, slot: number): Promise<PushSlot | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.pushSlot(agentId, slot), ConsistentRead: true }),
  );
  return Item as PushSlot | undefined;
}

/** Every slot item of the agent (at most PUSH.connectionsPerAgent: one Query page). */
export async function listSlots(agentId: string): Promise<PushSlot[]> {
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.pushSlot(agentId, 0).PK, ':prefix': keys.pushSlotPrefix },
      ConsistentRead: true,
    }),
  );
  return Items as PushSlot[];
}

/**
 * Moves the connection's cursor from `from` to `to`, only if it is still at `from` and still this
 * connection's slot: of two syncs that read from the same cursor, one moves it; a cursor never goes back.
 */
export async function advanceCursor(slot: PushSlot, from: string | undefined, to: string): Promise<boolean> {
  const result = await conditionalUpdate({
    Key: keys.pushSlot(slot.agent_id, slot.slot),
    UpdateExpression: 'SET #cursor = :to',
    ConditionExpression: `connection_id = :connection AND ${from === undefined ? 'attribute_not_exists(#cursor)' : '#cursor = :from'}`,
    ExpressionAttributeNames: { '#cursor': 'cursor' },
    ExpressionAttributeValues: {
      ':to': to,
      ':connection': slot.connection_id,
      ...(from === undefined ? {} : { ':from': from }),
    },
  });
  return result.ok;
}

/** Frees the connection's slot (if it still holds it) and deletes its lookup item. */
export async function releaseSlot(agentId: string, slot: number, connectionId: string): Promise<void> {
  await conditionalDelete({
    Key: keys.pushSlot(agentId, slot),
    ConditionExpression: 'connection_id = :connection',
    ExpressionAttributeValues: { ':connection': connectionId },
  });
  await conditionalDelete({ Key: keys.pushConnection(connectionId) });
}

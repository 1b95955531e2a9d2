/**
 * DynamoDB access for the agent item, and nothing else. Every write is one conditional
 * UpdateItem that also proves ownership (`owner_id = :owner`), so there is no read-then-write
 * window; after a failed condition the current item is read so the caller can tell "not
 * yours" from "wrong state".
 */

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { InvariantError } from '../core/errors.ts';
import { db, tableName } from '../store/client.ts';
import { conditionalUpdate } from '../store/conditional.ts';
import * as keys from '../store/key-builders.ts';
import { ENTITY } from '../store/keys.ts';
import { optimistic, RETRY } from '../store/optimistic.ts';
import { INDEXES } from '../store/table.ts';
import { alongLost, alongRefused, type TransactItem, transactWrite } from '../store/transact.ts';
import { writeWithAlong } from '../store/write-along.ts';
import { type AgentRecord, isAgentId } from './model.ts';

type Failed = { failed: true; current: AgentRecord | undefined };
export type WriteResult = AgentRecord | Failed;
export const isFailed = (r: WriteResult): r is Failed => 'failed' in r;

/**
 * The new agent and +1 on its owner's agent counter, in one transaction whose counter condition is
 * the cap: however many creates race, exactly `maxPerOwner` can commit. False when the owner is at
 * the cap (nothing written). `along`: items that commit with it (store/transact.ts, CommitAlong).
 */
export async function insertAgentWithinCap(
  agent: AgentRecord,
  maxPerOwner: number,
  along: TransactItem[] = [],
): Promise<boolean> {
  const result = await transactWrite([
    {
      Update: {
        TableName: tableName(),
        Key: keys.agentCount(agent.owner_id),
        UpdateExpression: 'SET entity = :entity ADD #count :one',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':entity': ENTITY.agentCount, ':one': 1, ':max': maxPerOwner },
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.agent(agent.id),
          entity: ENTITY.agent,
          ...keys.agentsIndex(agent.owner_id, agent.id),
          ...agent,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    ...along,
  ]);
  if (result.ok) return true;
  if (alongRefused(result.reasons, along.length)) throw alongLost();
  if (result.reasons[0] === 'ConditionalCheckFailed') return false;
  throw new InvariantError(`agent insert cancelled: ${result.reasons.join(', ')}`);
}

/**
 * An id that cannot be an agent's (from a body, a path or a message) names no agent and never
 * reaches a key. A deleted agent is no agent: every reader (routes, relay, delivery) sees none.
 */
export async function getAgent(agentId: string): Promise<AgentRecord | undefined> {
  if (!isAgentId(agentId)) return undefined;
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.agent(agentId), ConsistentRead: true }),
  );
  return liveAgent(Item);
}

/** The agent of a stored agent item, or undefined when there is none or it is deleted. */
export const liveAgent = (item: Record<string, unknown> | undefined): AgentRecord | undefined =>
  item && item['deleted_at'] === undefined ? (item as unknown as AgentRecord) : undefined;

/**
 * DELETE /agents/:id: the agent item stays (its feed keeps its TTL and ids are never reused) but is
 * marked deleted, its webhook disabled, taken out of the owner's list, and it stops counting
 * against the per-account cap, in one transaction. The item itself expires with the last event it
 * could have. False when there is no such agent of this owner (or it is deleted already).
 *
 * The counter never goes below zero: an agent made before the counter existed was never counted,
 * and when the counter is already 0 the delete runs without it (the transaction is cancelled on
 * the counter's condition alone, then the agent's update runs by itself).
 */
export async function deleteOwnedAgent(
  agentId: string,
  ownerId: string,
  now: string,
  expiresAtSeconds: number,
  /** Items committed with the delete (the request's Idempotency-Key answer). */
  along: TransactItem[] = [],
): Promise<boolean> {
  if (!isAgentId(agentId)) return false;
  const markDeleted = {
    Key: keys.agent(agentId),
    UpdateExpression:
      'SET deleted_at = :now, updated_at = :now, webhook_status = :disabled, webhook_url = :null, events = :none, expires_at = :expires REMOVE GSI1PK, GSI1SK ADD config_version :one',
    ConditionExpression: 'attribute_exists(PK) AND owner_id = :owner AND attribute_not_exists(deleted_at)',
    ExpressionAttributeValues: {
      ':now': now,
      ':disabled': 'DISABLED',
      ':null': null,
      ':none': [],
      ':expires': expiresAtSeconds,
      ':one': 1,
      ':owner': ownerId,
    },
  };
  const result = await transactWrite([
    { Update: { TableName: tableName(), ...markDeleted } },
    {
      Update: {
        TableName: tableName(),
        Key: keys.agentCount(ownerId),
        UpdateExpression: 'ADD #count :minus',
        ConditionExpression: '#count > :zero',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      },
    },
    ...along,
  ]);
  if (result.ok) return true;
  if (alongRefused(result.reasons, along.length)) throw alongLost();
  const [agent, counter] = result.reasons;
  if (agent === 'ConditionalCheckFailed') return false;
  if (counter !== 'ConditionalCheckFailed')
    throw new InvariantError(`agent delete cancelled: ${result.reasons.join(', ')}`);
  if (along.length > 0) return writeWithAlong({ Update: { TableName: tableName(), ...markDeleted } }, along);
  return (await conditionalUpdate(markDeleted)).ok;
}

/** Newest first (agent ids sort by creation time); reads `limit + 1` items to know whether more exist. */
export async function listAgentsOf(
  ownerId: string,
  limit: number,
  afterId?: string,
): Promise<{ agents: AgentRecord[]; nextAfterId: string | null }> {
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: INDEXES.gsi1.name,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': INDEXES.gsi1.partitionKey, '#sk': INDEXES.gsi1.sortKey },
      ExpressionAttributeValues: { ':pk': keys.agentsIndexPk(ownerId), ':prefix': keys.agentsIndexSk('') },
      ScanIndexForward: false,
      Limit: limit + 1,
      ...(afterId ? { ExclusiveStartKey: { ...keys.agent(afterId), ...keys.agentsIndex(ownerId, afterId) } } : {}),
    }),
  );
  const agents = (Items as AgentRecord[]).slice(0, limit);
  return { agents, nextAfterId: Items.length > limit ? agents[agents.length - 1]!.id : null };
}

/** Written only if the attribute is absent (`if_not_exists`): a concurrent first PATCH may have stored a secret already. */
export class IfAbsent {
  readonly value: unknown;
  constructor(value: unknown) {
    this.value = value;
  }
}

/**
 * Set to another attribute's value as it is before this update (`SET a = b` reads b before the
 * write); with `orElse`, that value when the attribute is absent (`if_not_exists(b, :orElse)`).
 */
export class CopyOf {
  readonly attribute: string;
  readonly orElse: { value: unknown } | undefined;
  constructor(attribute: string, orElse?: { value: unknown }) {
    this.attribute = attribute;
    this.orElse = orElse;
  }
}

interface Change {
  set: Record<string, unknown>;
  /** Extra condition on top of ownership, with its own values. */
  condition?: string;
  values?: Record<string, unknown>;
  bumpVersion: boolean;
}

/**
 * One conditional update of the caller's agent: the new item, or the current one when the condition failed.
 * `along` (the request's `Idempotency-Key` answer, made from the new item): the update and those
 * items commit in one transaction. A transaction returns no item, so the new item is the one read
 * with the change applied here, and the update holds only while the item is still the one read
 * (its `updated_at`, which every change of what the answer shows sets, and `last_verified_at`,
 * which a re-verification sets alone); another writer in between makes it read and try again.
 */
export async function updateOwnedAgent(
  agentId: string,
  ownerId: string,
  change: Change,
  along?: (agent: AgentRecord) => TransactItem[],
): Promise<WriteResult> {
  return along ? updateAlong(agentId, ownerId, change, along) : updateOwnedAgentAlone(agentId, ownerId, change);
}

/** updateOwnedAgent without items along (what the handshake needs alone: its bundle does not carry the rest). */
export async function updateOwnedAgentAlone(agentId: string, ownerId: string, change: Change): Promise<WriteResult> {
  const update = agentUpdate(agentId, ownerId, change);
  try {
    const { Attributes } = await db().send(new UpdateCommand({ ...update, ReturnValues: 'ALL_NEW' }));
    return Attributes as AgentRecord;
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    // Only to choose the error (404 vs 409); the write itself was decided by the condition.
    return { failed: true, current: await getAgent(agentId) };
  }
}

/** The UpdateItem of a change: ownership and the change's own condition, the sets, the version bump. */
export function agentUpdate(agentId: string, ownerId: string, change: Change) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':owner': ownerId, ...change.values };
  const sets = Object.entries(change.set).map(([field, value], i) => {
    names[`#f${i}`] = field;
    if (value instanceof CopyOf) {
      names[`#c${i}`] = value.attribute;
      if (!value.orElse) return `#f${i} = #c${i}`;
      values[`:v${i}`] = value.orElse.value;
      return `#f${i} = if_not_exists(#c${i}, :v${i})`;
    }
    if (value instanceof IfAbsent) {
      values[`:v${i}`] = value.value;
      return `#f${i} = if_not_exists(#f${i}, :v${i})`;
    }
    values[`:v${i}`] = value;
    return `#f${i} = :v${i}`;
  });
  if (change.bumpVersion) values[':one'] = 1;
  return {
    TableName: tableName(),
    Key: keys.agent(agentId),
    UpdateExpression: `SET ${sets.join(', ')}${change.bumpVersion ? ' ADD config_version :one' : ''}`,
    ConditionExpression: `attribute_exists(PK) AND owner_id = :owner AND attribute_not_exists(deleted_at)${change.condition ? ` AND (${change.condition})` : ''}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** The agent as `change` leaves it, as DynamoDB would apply the update to `agent`. */
function applied(agent: AgentRecord, change: Change): AgentRecord {
  const next: Record<string, unknown> = { ...agent };
  const before = agent as unknown as Record<string, unknown>;
  for (const [field, value] of Object.entries(change.set)) {
    if (value instanceof CopyOf) next[field] = before[value.attribute] ?? value.orElse?.value;
    else if (value instanceof IfAbsent) next[field] = before[field] ?? value.value;
    else next[field] = value;
  }
  if (change.bumpVersion) next['config_version'] = (agent.config_version ?? 0) + 1;
  return next as unknown as AgentRecord;
}

/** Is `name` still what was read: equal, or absent as it was (a stored null is a NULL). */
function unchanged(name: string, value: unknown, values: Record<string, unknown>, placeholder: string): string {
  if (value === undefined) return `attribute_not_exists(${name})`;
  if (value === null) {
    values[placeholder] = 'NULL';
    return `attribute_type(${name}, ${placeholder})`;
  }
  values[placeholder] = value;
  return `${name} = ${placeholder}`;
}

async function updateAlong(
  agentId: string,
  ownerId: string,
  change: Change,
  along: (agent: AgentRecord) => TransactItem[],
): Promise<WriteResult> {
  const update = agentUpdate(agentId, ownerId, change);
  return optimistic(async () => {
    const current = await getAgent(agentId);
    if (!current || current.owner_id !== ownerId) return { failed: true, current };
    const values = { ...update.ExpressionAttributeValues };
    const sameAsRead = [
      unchanged('updated_at', current.updated_at, values, ':readUpdatedAt'),
      unchanged('last_verified_at', current.last_verified_at, values, ':readVerifiedAt'),
    ].join(' AND ');
    const result = await updateReadAgent(
      applied(current, change),
      {
        ...update,
        ConditionExpression: `${update.ConditionExpression} AND ${sameAsRead}`,
        ExpressionAttributeValues: values,
      },
      along,
    );
    if (!isFailed(result)) return result;
    const now = result.current;
    const moved = now?.updated_at !== current.updated_at || now?.last_verified_at !== current.last_verified_at;
    return moved && now?.owner_id === ownerId ? RETRY : result;
  });
}

/**
 * An agent's update in one transaction with `along`, made from `next` (the agent as read with the
 * update applied), on the update's own conditions: for a change whose condition already pins what
 * its answer shows (the handshake's `config_version`), no read again is needed.
 */
export async function updateReadAgent(
  next: AgentRecord,
  update: ReturnType<typeof agentUpdate>,
  along: (agent: AgentRecord) => TransactItem[],
): Promise<WriteResult> {
  const items = along(next);
  const result = await transactWrite([{ Update: update }, ...items]);
  if (result.ok) return next;
  if (alongRefused(result.reasons, items.length)) throw alongLost();
  return { failed: true, current: await getAgent(next.id) };
}

/**
 * DynamoDB access for destination items, and nothing else. A destination lives in its agent's
 * partition (one Query lists them); the agent item's `destination_count` is the per-agent cap,
 * moved in the same transaction as each create and delete (an ADD of the destinations' own
 * attribute, as CONTRIBUTING.md allows other domains on the agent item).
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { InvariantError } from '../core/errors.ts';
import { DESTINATIONS, FUTURE_TOLERANCE_MS, MAX_CLOCK_SKEW_MS } from '../core/settings.ts';
import { db, tableName } from '../store/client.ts';
import { conditionalUpdate } from '../store/conditional.ts';
import * as keys from '../store/key-builders.ts';
import { destinationKeys, ENTITY, withoutKeys } from '../store/keys.ts';
import { alongLost, alongRefused, type TransactItem, transactWrite } from '../store/transact.ts';
import { writeWithAlong } from '../store/write-along.ts';
import type { DestinationRecord } from './model.ts';

const fromItem = (item: Record<string, unknown>): DestinationRecord =>
  withoutKeys(item) as unknown as DestinationRecord;

const VERIFY_REQUEST_TTL_SECONDS = 24 * 3600;

/**
 * A request for a new verification message: an item whose INSERT the table's stream carries to the
 * relay, which queues the message for the destinations' worker (lib/events/relay.ts). So the routes
 * that ask for one need no SQS client (docs/cost.md, bundle budget). `requested_at` is the ask the
 * destination item holds (`verification_requested_at`): the worker sends for that ask only, once.
 */
function verifyRequestItem(agentId: string, destinationId: string, nowMs: number): Record<string, unknown> {
  return {
    ...destinationKeys.verifyRequest(agentId, destinationId, nowMs),
    entity: ENTITY.destinationVerifyRequest,
    agent_id: agentId,
    destination_id: destinationId,
    requested_at: nowMs,
    deliver: true,
    expires_at: Math.floor(nowMs / 1000) + VERIFY_REQUEST_TTL_SECONDS,
  };
}

/**
 * Asks for a new verification message, if the destination's last ask is at least
 * `DESTINATIONS.verificationIntervalMs` (plus the skew bound) behind `nowMs`, or was stamped by a
 * clock beyond the bound: one transaction moves `verification_requested_at` to `nowMs` on that
 * condition and writes the request, so however many calls race on however many instances, one
 * asks per interval. `refused` carries the item as it is (to say when to ask again, or that it
 * went ENABLED or away meanwhile).
 */
export async function askForVerification(
  agentId: string,
  destinationId: string,
  nowMs: number,
): Promise<{ ok: true } | { ok: false; current: DestinationRecord | undefined }> {
  const result = await transactWrite([
    {
      Update: {
        TableName: tableName(),
        Key: destinationKeys.destination(agentId, destinationId),
        ConditionExpression:
          'attribute_exists(PK) AND #st <> :enabled AND (attribute_not_exists(verification_requested_at) OR verification_requested_at <= :floor OR verification_requested_at > :ceiling)',
        UpdateExpression: 'SET verification_requested_at = :now',
        ExpressionAttributeNames: { '#st': 'status' },
        ExpressionAttributeValues: {
          ':enabled': 'ENABLED',
          ':now': nowMs,
          ':floor': nowMs - DESTINATIONS.verificationIntervalMs - MAX_CLOCK_SKEW_MS,
          ':ceiling': nowMs + FUTURE_TOLERANCE_MS,
        },
      },
    },
    { Put: { TableName: tableName(), Item: verifyRequestItem(agentId, destinationId, nowMs) } },
  ]);
  if (result.ok) return { ok: true };
  if (result.reasons[0] !== 'ConditionalCheckFailed')
    throw new InvariantError(`verification request cancelled: ${result.reasons.join(', ')}`);
  return { ok: false, current: await readDestination(agentId, destinationId) };
}

/** When `askForVerification` will next take an ask stamped `requestedAt` (ms, by the clock that asks). */
export const nextVerificationAskAt = (requestedAt: number): number =>
  requestedAt + DESTINATIONS.verificationIntervalMs + MAX_CLOCK_SKEW_MS;

/**
 * The destination, its first verification request (when the record carries an ask,
 * `verification_requested_at`, which the first message then counts against; only the local demo
 * seed stores one without, carrying a code already) and +1 on the agent's count, on the conditions
 * that the agent is the owner's and under the cap.
 */
export async function insertDestination(
  record: DestinationRecord,
  maxPerAgent: number,
  /** Items committed with it (the request's Idempotency-Key answer). */
  along: TransactItem[] = [],
): Promise<'created' | 'no_agent' | 'at_cap'> {
  const result = await transactWrite([
    {
      Update: {
        TableName: tableName(),
        Key: keys.agent(record.agent_id),
        ConditionExpression:
          'attribute_exists(PK) AND owner_id = :owner AND attribute_not_exists(deleted_at) AND (attribute_not_exists(destination_count) OR destination_count < :max)',
        UpdateExpression: 'ADD destination_count :one',
        ExpressionAttributeValues: { ':owner': record.owner_id, ':max': maxPerAgent, ':one': 1 },
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: { ...destinationKeys.destination(record.agent_id, record.id), entity: ENTITY.destination, ...record },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    ...(record.verification_requested_at !== undefined
      ? [
          {
            Put: {
              TableName: tableName(),
              Item: verifyRequestItem(record.agent_id, record.id, record.verification_requested_at),
            },
          },
        ]
      : []),
    ...along,
  ]);
  if (result.ok) return 'created';
  if (alongRefused(result.reasons, along.length)) throw alongLost();
  if (result.reasons[0] !== 'ConditionalCheckFailed')
    throw new InvariantError(`destination insert cancelled: ${result.reasons.join(', ')}`);
  return 'at_cap'; // the caller tells a missing agent from one at its cap by the agent it read
}

export async function readDestination(agentId: string, destinationId: string): Promise<DestinationRecord | undefined> {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: destinationKeys.destination(agentId, destinationId),
      ConsistentRead: true,
    }),
  );
  return Item ? fromItem(Item) : undefined;
}

/** Every destination of an agent (at most DESTINATIONS.maxPerAgent), oldest first. */
export async function listDestinationsOf(agentId: string): Promise<DestinationRecord[]> {
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': destinationKeys.agentPk(agentId), ':prefix': destinationKeys.prefix },
      ConsistentRead: true,
    }),
  );
  return Items.map(fromItem);
}

/** The destination gone and −1 on the count; false when it was not there (or not the owner's). */
export async function deleteDestinationItem(
  agentId: string,
  destinationId: string,
  ownerId: string,
  along: TransactItem[] = [],
): Promise<boolean> {
  const result = await transactWrite([
    {
      Delete: {
        TableName: tableName(),
        Key: destinationKeys.destination(agentId, destinationId),
        ConditionExpression: 'attribute_exists(PK) AND owner_id = :owner',
        ExpressionAttributeValues: { ':owner': ownerId },
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: keys.agent(agentId),
        ConditionExpression: 'destination_count > :zero',
        UpdateExpression: 'ADD destination_count :minus',
        ExpressionAttributeValues: { ':zero': 0, ':minus': -1 },
      },
    },
    ...along,
  ]);
  if (result.ok) return true;
  if (alongRefused(result.reasons, along.length)) throw alongLost();
  if (result.reasons[0] === 'ConditionalCheckFailed') return false;
  throw new InvariantError(`destination delete cancelled: ${result.reasons.join(', ')}`);
}

interface DestinationUpdate {
  set: Record<string, unknown>;
  remove?: string[];
  add?: Record<string, number>;
  condition: string;
  values?: Record<string, unknown>;
  /** Names the condition uses (`#…`). */
  names?: Record<string, string>;
}

/**
 * One conditional update of a destination: the new item, or the item as it was when the condition
 * failed (undefined when there is none).
 */
export async function updateDestination(
  agentId: string,
  destinationId: string,
  update: DestinationUpdate,
): Promise<{ ok: true; record: DestinationRecord } | { ok: false; current: DestinationRecord | undefined }> {
  const result = await conditionalUpdate({
    ...destinationUpdate(agentId, destinationId, update),
    ReturnValues: 'ALL_NEW',
  });
  if (result.ok) return { ok: true, record: fromItem(result.attributes!) };
  return { ok: false, current: result.current ? fromItem(result.current) : undefined };
}

/**
 * updateDestination with items committed with it (the request's Idempotency-Key answer), made
 * from the new item: one transaction, which returns no item, so the new item is `before` (the
 * destination as read) with the update applied here. A function of its own: the workers that
 * update destinations do not carry the transaction.
 */
export async function updateDestinationAlong(
  before: DestinationRecord,
  update: DestinationUpdate,
  along: (record: DestinationRecord) => TransactItem[],
): Promise<{ ok: true; record: DestinationRecord } | { ok: false; current: DestinationRecord | undefined }> {
  const record = appliedTo(before, update);
  const write = destinationUpdate(before.agent_id, before.id, update);
  if (await writeWithAlong({ Update: { TableName: tableName(), ...write } }, along(record)))
    return { ok: true, record };
  return { ok: false, current: await readDestination(before.agent_id, before.id) };
}

function destinationUpdate(agentId: string, destinationId: string, update: DestinationUpdate) {
  const names: Record<string, string> = { ...update.names };
  const values: Record<string, unknown> = { ...update.values };
  const sets = Object.entries(update.set).map(([field, value], i) => {
    names[`#s${i}`] = field;
    values[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  const adds = Object.entries(update.add ?? {}).map(([field, value], i) => {
    names[`#a${i}`] = field;
    values[`:a${i}`] = value;
    return `#a${i} :a${i}`;
  });
  const removes = (update.remove ?? []).map((field, i) => {
    names[`#r${i}`] = field;
    return `#r${i}`;
  });
  return {
    Key: destinationKeys.destination(agentId, destinationId),
    ConditionExpression: `attribute_exists(PK) AND (${update.condition})`,
    UpdateExpression: [
      sets.length ? `SET ${sets.join(', ')}` : '',
      adds.length ? `ADD ${adds.join(', ')}` : '',
      removes.length ? `REMOVE ${removes.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' '),
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
  };
}

/** The destination as an update leaves it, as DynamoDB would apply the update to `before`. */
function appliedTo(
  before: DestinationRecord,
  update: { set: Record<string, unknown>; remove?: string[]; add?: Record<string, number> },
): DestinationRecord {
  const next: Record<string, unknown> = { ...before, ...update.set };
  for (const [field, value] of Object.entries(update.add ?? {})) next[field] = Number(next[field] ?? 0) + value;
  for (const field of update.remove ?? []) delete next[field];
  return next as unknown as DestinationRecord;
}

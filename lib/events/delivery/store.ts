/**
 * The delivery room's DynamoDB calls: delivery records read, created once (conditionally, or in
 * batches the relay found missing) and listed newest first or by status; the attempts' conditional
 * updates (take-attempt.ts and attempt-outcome.ts decide them, and what to do when one is refused)
 * and the agent's webhook-health attributes (webhook-health.ts).
 */

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { InvariantError } from '../../core/errors.ts';
import { nowIso } from '../../core/time.ts';
import type { TraceContext } from '../../core/trace-context.ts';
import { batchGet, batchWrite, keyString } from '../../store/batch.ts';
import { db, tableName } from '../../store/client.ts';
import { type ConditionalResult, conditionalUpdate } from '../../store/conditional.ts';
import * as keys from '../../store/key-builders.ts';
import type { Key } from '../../store/keys.ts';
import { INDEXES } from '../../store/table.ts';
import type { TransactItem } from '../../store/transact.ts';
import { commitAlongAlone } from '../../store/write-along.ts';
import type { ServiceEvent } from '../feed/event.ts';
import { type AttemptEntry, attemptLogKey, MAX_ATTEMPT_LOG } from './attempt-history.ts';
import {
  type DeliveryRecord,
  type DeliveryStatus,
  type DeliveryView,
  deliveryFromItem,
  deliveryIdFor,
  deliveryItem,
  type IndexedStatus,
  isIndexedStatus,
  newDelivery,
  statusIndexAttribute,
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
  /** The trace that caused the event (its feed row's): each attempt's `traceparent` continues it. */
  trace?: TraceContext,
): Promise<{ record: DeliveryRecord; created: boolean }> {
  const record = { ...newDelivery(event, deliveryId, undefined, destinationId), ...(trace ? { trace } : {}) };
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
 * is the last id seen. `failed` and `pending` (retrying) come from the DeliveriesByStatus index,
 * which holds failures only: its keys and one BatchGetItem give the records. `succeeded`, nearly
 * every record, filters the newest-first list. O(limit) items either way (docs/api.md).
 */
export async function listDeliveries(
  agentId: string,
  cursor: string | undefined,
  limit: number,
  status?: DeliveryStatus,
): Promise<DeliveryPage> {
  return status && isIndexedStatus(status)
    ? listByStatus(agentId, status, cursor, limit)
    : listNewestFirst(agentId, cursor, limit, status);
}

/**
 * Pages of the newest-first list read for one filtered page: a page that finds fewer than `limit`
 * successes in this many reads ends short, with a cursor (a well-formed page, as any cursor page may be).
 */
const FILTERED_READS = 4;

async function newestPage(agentId: string, cursor: string | undefined, size: number): Promise<DeliveryRecord[]> {
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
      Limit: size,
      ConsistentRead: true,
    }),
  );
  return Items.map(deliveryFromItem);
}

async function listNewestFirst(
  agentId: string,
  cursor: string | undefined,
  limit: number,
  only?: DeliveryStatus,
): Promise<DeliveryPage> {
  const found: DeliveryRecord[] = [];
  let after = cursor;
  let exhausted = false;
  for (let reads = 0; found.length <= limit && !exhausted && reads < FILTERED_READS; reads++) {
    // BETWEEN includes the cursor itself; one more than the page tells whether another page exists.
    const size = limit + 2;
    const page = await newestPage(agentId, after, size);
    exhausted = page.length < size;
    for (const record of page) {
      if (record.id === after) continue;
      after = record.id;
      if (!only || record.status === only) found.push(record);
      if (found.length > limit) break;
    }
  }
  const data = found.slice(0, limit);
  const next_cursor = found.length > limit ? (data.at(-1)?.id ?? null) : exhausted ? null : (after ?? null);
  return { data: data.map(toView), next_cursor };
}

async function listByStatus(
  agentId: string,
  status: IndexedStatus,
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

/** Agents and delivery items in one strongly consistent BatchGetItem: what the relay and the worker read of a batch. */
export const readAgentsAndDeliveries = (
  agentIds: readonly string[],
  deliveryKeys: readonly Key[],
): Promise<Map<string, Record<string, unknown>>> =>
  batchGet([...agentIds.map((id) => keys.agent(id)), ...deliveryKeys], { consistent: true });

/** Destination and delivery items in one strongly consistent BatchGetItem: what the destinations' worker reads of a batch (destination-batch.ts). */
export const readDestinationsAndDeliveries = (
  itemKeys: readonly Key[],
): Promise<Map<string, Record<string, unknown>>> => batchGet(itemKeys, { consistent: true });

/** Webhook health (webhook-health.ts): the agent is healthy again, unless another batch changed when it started failing. */
export const clearFailing = (agentId: string, since: number): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: keys.agent(agentId),
    ConditionExpression: 'failing_since = :since',
    UpdateExpression: 'REMOVE failing_since, failing_config',
    ExpressionAttributeValues: { ':since': since },
  });

/** Webhook health: the enabled webhook of this configuration has failed since `nowMs`, unless that is already known. */
export const markFailing = (agentId: string, configVersion: number, nowMs: number): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: keys.agent(agentId),
    ConditionExpression:
      'webhook_status = :enabled AND config_version = :cv AND (attribute_not_exists(failing_since) OR failing_config <> :cv)',
    UpdateExpression: 'SET failing_since = :now, failing_config = :cv',
    ExpressionAttributeValues: { ':enabled': 'ENABLED', ':cv': configVersion, ':now': nowMs },
  });

/** What every take sets: who made the attempt, and a history map for the record to write into. */
const takeSet = 'carrier = :carrier, updated_at = :now, attempt_log = if_not_exists(attempt_log, :emptyLog)';
const takeValues = (messageId: string) => ({ ':carrier': messageId, ':now': nowIso(), ':emptyLog': {} });

/** A manual retry's take (take-attempt.ts): one more on the count, no condition on it; the record after. */
export const countExtraAttempt = (
  seen: DeliveryRecord,
  messageId: string,
  force: boolean,
): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: key(seen.agent_id, seen.id),
    ConditionExpression: force ? 'attribute_exists(PK)' : 'attribute_exists(PK) AND #status <> :succeeded',
    UpdateExpression: `SET attempts = attempts + :one, extra_attempts = if_not_exists(extra_attempts, :zero) + :one, ${takeSet}`,
    ...(force ? {} : { ExpressionAttributeNames: { '#status': 'status' } }),
    ExpressionAttributeValues: {
      ':one': 1,
      ':zero': 0,
      ...takeValues(messageId),
      ...(force ? {} : { ':succeeded': 'succeeded' }),
    },
    ReturnValues: 'ALL_NEW',
  });

/** The schedule's slot `number` (take-attempt.ts), if the counts `current` read still hold; the record after, or as it is. */
export function takeScheduledSlot(
  current: DeliveryRecord,
  number: number,
  inFlightUntil: string,
  messageId: string,
): Promise<ConditionalResult> {
  const extraHeld =
    current.extra_attempts === undefined ? 'attribute_not_exists(extra_attempts)' : 'extra_attempts = :extra';
  return conditionalUpdate({
    Key: key(current.agent_id, current.id),
    ConditionExpression: `attempts = :seen AND ${extraHeld} AND #status = :pending`,
    UpdateExpression: `SET attempts = :n, next_attempt_at = :inFlightUntil, ${takeSet}`,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':seen': current.attempts,
      ':n': number,
      ':pending': 'pending',
      ':inFlightUntil': inFlightUntil,
      ...(current.extra_attempts === undefined ? {} : { ':extra': current.extra_attempts }),
      ...takeValues(messageId),
    },
    ReturnValues: 'ALL_NEW',
  });
}

/** What an attempt's outcome writes (attempt-outcome.ts decides it, and what to drop after a refusal). */
export interface OutcomeWrite {
  number: number;
  entry: AttemptEntry;
  lastError: string | null;
  /** The status change, if any. */
  state: { status: DeliveryStatus; next_attempt_at: string | null } | undefined;
  /** On condition the delivery has not succeeded meanwhile. */
  guardStatus: boolean;
  /** With the history entry, on condition the count has not gone MAX_ATTEMPT_LOG past it. */
  withEntry: boolean;
}

/** The outcome's one conditional update; the oldest history entry drops out past MAX_ATTEMPT_LOG. */
export function writeOutcome(seen: DeliveryRecord, write: OutcomeWrite): Promise<ConditionalResult> {
  const { number, entry, state, guardStatus, withEntry } = write;
  const dropOldest = number > MAX_ATTEMPT_LOG;
  // Failures only in the status index: a failing status places the entry, a success removes it.
  const placement = state && isIndexedStatus(state.status) ? statusPlacement(seen.agent_id, state.status) : undefined;
  const removes = [...(state && !placement ? ['#index'] : []), ...(dropOldest ? ['#log.#oldest'] : [])];
  const conditions = [
    'attribute_exists(PK)',
    ...(guardStatus ? ['#status <> :succeeded'] : []),
    ...(withEntry ? ['attempts < :pastWindow'] : []),
  ];
  return conditionalUpdate({
    Key: key(seen.agent_id, seen.id),
    ConditionExpression: conditions.join(' AND '),
    UpdateExpression:
      `SET last_status_code = :code, last_error = :error, updated_at = :now` +
      (state ? ', #status = :status, next_attempt_at = :next' : '') +
      (placement ? ', #index = :index' : '') +
      (withEntry ? ', #log.#entry = :entry' : '') +
      (removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''),
    ExpressionAttributeNames: {
      ...(state || guardStatus ? { '#status': 'status' } : {}),
      ...(state ? { '#index': statusIndexAttribute } : {}),
      ...(withEntry || dropOldest ? { '#log': 'attempt_log' } : {}),
      ...(withEntry ? { '#entry': attemptLogKey(number) } : {}),
      ...(dropOldest ? { '#oldest': attemptLogKey(number - MAX_ATTEMPT_LOG) } : {}),
    },
    ExpressionAttributeValues: {
      ':code': entry.status_code,
      ':error': write.lastError,
      ':now': nowIso(),
      ...(state ? { ':status': state.status, ':next': state.next_attempt_at } : {}),
      ...(placement ? { ':index': placement.value } : {}),
      ...(guardStatus ? { ':succeeded': 'succeeded' } : {}),
      ...(withEntry ? { ':entry': entry, ':pastWindow': number + MAX_ATTEMPT_LOG } : {}),
    },
  });
}

/** Ends a pending delivery without an attempt (webhook no longer enabled, event expired). */
export async function abandonDelivery(seen: DeliveryRecord, reason: string): Promise<void> {
  await conditionalUpdate({
    Key: key(seen.agent_id, seen.id),
    ConditionExpression: 'attempts = :seen AND #status = :pending',
    UpdateExpression:
      'SET #status = :failed, #index = :index, last_error = :reason, next_attempt_at = :null, updated_at = :now',
    ExpressionAttributeNames: { '#status': 'status', '#index': statusPlacement(seen.agent_id, 'failed').name },
    ExpressionAttributeValues: {
      ':seen': seen.attempts,
      ':pending': 'pending',
      ':failed': 'failed',
      ':index': statusPlacement(seen.agent_id, 'failed').value,
      ':reason': reason,
      ':null': null,
      ':now': nowIso(),
    },
  });
}

/**
 * A manual retry of a failed delivery: back to pending, so its one extra attempt decides the
 * outcome (a failure ends `failed` again: the schedule stays spent). Undefined when it is not failed.
 */
export async function reopenFailed(agentId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
  const now = nowIso();
  const result = await conditionalUpdate({
    Key: key(agentId, deliveryId),
    ConditionExpression: '#status = :failed',
    UpdateExpression: 'SET #status = :pending, #index = :index, next_attempt_at = :now, updated_at = :now',
    ExpressionAttributeNames: { '#status': 'status', '#index': statusPlacement(agentId, 'pending').name },
    ExpressionAttributeValues: {
      ':failed': 'failed',
      ':pending': 'pending',
      ':index': statusPlacement(agentId, 'pending').value,
      ':now': now,
    },
    ReturnValues: 'ALL_NEW',
  });
  return result.ok && result.attributes ? deliveryFromItem(result.attributes) : undefined;
}

/** The circuit (circuit.ts): the one worker whose write moves a passed `circuit_open_until` forward makes the probe. */
export const claimCircuitProbe = (agentId: string, seen: number, until: number): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: keys.agent(agentId),
    ConditionExpression: 'circuit_open_until = :seen',
    UpdateExpression: 'SET circuit_open_until = :probe',
    ExpressionAttributeValues: { ':seen': seen, ':probe': until },
  });

export const closeCircuit = (agentId: string): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: keys.agent(agentId),
    ConditionExpression: 'attribute_exists(PK)',
    UpdateExpression: 'REMOVE circuit_failures, circuit_open_until, circuit_openings',
  });

/** ADD, so concurrent batches count exactly; the agent item as it is after. */
export const countCircuitFailures = (agentId: string, failed: number): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: keys.agent(agentId),
    ConditionExpression: 'attribute_exists(PK)',
    // A failure puts the endpoint in doubt (endpoint-slots.ts) in the same write.
    UpdateExpression: 'ADD circuit_failures :n REMOVE post_proven_until',
    ExpressionAttributeValues: { ':n': failed },
    ReturnValues: 'ALL_NEW',
  });

/** Only ever later: a concurrent batch that opened it for longer keeps its time. `tripped`: a new opening of the streak. */
export const openCircuit = (agentId: string, until: number, tripped: boolean): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: keys.agent(agentId),
    ConditionExpression: 'attribute_not_exists(circuit_open_until) OR circuit_open_until < :until',
    UpdateExpression: tripped
      ? 'SET circuit_open_until = :until, circuit_failures = :zero ADD circuit_openings :one'
      : 'SET circuit_open_until = :until',
    ExpressionAttributeValues: { ':until': until, ...(tripped ? { ':zero': 0, ':one': 1 } : {}) },
  });

/** The owner's rate limit (rate-limit.ts): the window moves on, or fills, only if it is still the one read. */
export const claimRateWindow = (
  item: Key,
  seen: { rate_second?: number; rate_used?: number },
  second: number,
  used: number,
): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: item,
    ConditionExpression:
      seen.rate_second === undefined
        ? 'attribute_exists(PK) AND attribute_not_exists(rate_second)'
        : 'rate_second = :seenSecond AND rate_used = :seenUsed',
    UpdateExpression: 'SET rate_second = :second, rate_used = :used',
    ExpressionAttributeValues: {
      ':second': second,
      ':used': used,
      ...(seen.rate_second === undefined ? {} : { ':seenSecond': seen.rate_second, ':seenUsed': seen.rate_used ?? 0 }),
    },
  });

/** A POST slot of the endpoint (endpoint-slots.ts): taken only if free, lapsed, or stamped past `future` (a broken clock). */
export const claimPostSlot = (
  agentId: string,
  slot: string,
  nowMs: number,
  future: number,
  until: number,
): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: keys.agent(agentId),
    ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(#slot) OR #slot <= :now OR #slot > :future)',
    UpdateExpression: 'SET #slot = :until',
    ExpressionAttributeNames: { '#slot': slot },
    ExpressionAttributeValues: { ':now': nowMs, ':future': future, ':until': until },
  });

/** The batch's POST slots given back, each only while it is still this batch's lease. */
export const releasePostSlots = (
  agentId: string,
  slots: readonly string[],
  until: number,
): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: keys.agent(agentId),
    ConditionExpression: slots.map((_, i) => `#s${i} = :until`).join(' AND '),
    UpdateExpression: `REMOVE ${slots.map((_, i) => `#s${i}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(slots.map((slot, i) => [`#s${i}`, slot])),
    ExpressionAttributeValues: { ':until': until },
  });

/** Proven (endpoint-slots.ts) for this configuration, unless a failure was counted or the circuit opened meanwhile. */
export const markEndpointProven = (agentId: string, configVersion: number, until: number): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: keys.agent(agentId),
    ConditionExpression:
      'config_version = :cv AND attribute_not_exists(circuit_failures) AND attribute_not_exists(circuit_open_until)',
    UpdateExpression: 'SET post_proven_until = :until, post_proven_config = :cv',
    ExpressionAttributeValues: { ':cv': configVersion, ':until': until },
  });

/** In doubt again (endpoint-slots.ts): a POST to it was slow. */
export const doubtEndpoint = (agentId: string): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: keys.agent(agentId),
    ConditionExpression: 'attribute_exists(post_proven_until)',
    UpdateExpression: 'REMOVE post_proven_until',
  });

/** Re-verification (reverify.ts): only of the ENABLED configuration that was read. */
const REVERIFY_GUARD = 'webhook_status = :enabled AND config_version = :cv';

export const claimReverify = (agentId: string, configVersion: number, nowMs: number, until: number) =>
  conditionalUpdate({
    Key: keys.agent(agentId),
    ConditionExpression: `${REVERIFY_GUARD} AND (attribute_not_exists(reverify_claimed_until) OR reverify_claimed_until <= :now)`,
    UpdateExpression: 'SET reverify_claimed_until = :until',
    ExpressionAttributeValues: { ':enabled': 'ENABLED', ':cv': configVersion, ':now': nowMs, ':until': until },
  });

export const recordReverified = (agentId: string, configVersion: number, at: string) =>
  conditionalUpdate({
    Key: keys.agent(agentId),
    ConditionExpression: REVERIFY_GUARD,
    UpdateExpression: 'SET last_verified_at = :at REMOVE reverify_failures',
    ExpressionAttributeValues: { ':enabled': 'ENABLED', ':cv': configVersion, ':at': at },
  });

/** One more failure, or (`demote`) back to PENDING_VERIFICATION with a new config_version. */
export const recordReverifyFailure = (agentId: string, configVersion: number, demote: boolean, at: string) =>
  conditionalUpdate({
    Key: keys.agent(agentId),
    ConditionExpression: REVERIFY_GUARD,
    UpdateExpression: demote
      ? 'SET webhook_status = :pending, updated_at = :at REMOVE reverify_failures, reverify_claimed_until ADD config_version :one'
      : 'ADD reverify_failures :one',
    ExpressionAttributeValues: {
      ':enabled': 'ENABLED',
      ':cv': configVersion,
      ':one': 1,
      ...(demote ? { ':pending': 'PENDING_VERIFICATION', ':at': at } : {}),
    },
  });

/** A manual retry's answer, committed alone once its message is sent (events/service.ts). */
export const commitManualRetryAnswer = (along: TransactItem[] | undefined): Promise<void> => commitAlongAlone(along);

/**
 * Delivery records: one per (event, agent), whatever the number of stream records or SQS copies
 * that mention it, because the id is derived from the event id and the record is created
 * conditionally. The record carries the event itself, so an attempt needs no read of the feed,
 * and its attempt history. Attempts: attempt-outcome.ts; reads and writes: store.ts.
 */
import { nowIso } from '../../core/time.ts';
import type { TraceContext } from '../../core/trace-context.ts';
import * as keys from '../../store/key-builders.ts';
import { ENTITY, withoutKeys } from '../../store/keys.ts';
import { INDEXES } from '../../store/table.ts';
import { type DeliveryStatus, expiresAt, type ServiceEvent } from '../feed/event.ts';
import type { DeliveryAnswer, DeliveryDetailAnswer } from './answer.ts';
import { type AttemptEntry, attemptList } from './attempt-history.ts';
import { scheduledAttempts } from './retry-schedule.ts';

export type { DeliveryStatus };

export interface DeliveryRecord {
  id: string;
  event_id: string;
  event_type: ServiceEvent['type'];
  agent_id: string;
  /** Set when it goes to one of the agent's AWS destinations (lib/destinations) instead of its webhook. */
  destination_id?: string;
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
  /** The trace of the request that caused the event (lib/core/trace-context.ts): each attempt's `traceparent` continues it. */
  trace?: TraceContext;
  /** The SQS message id that recorded the latest attempt (tells a message received twice from a copy). */
  carrier?: string;
  /** Attempt history keyed by attemptLogKey (a map, so one update can add an entry and drop the oldest). */
  attempt_log?: Record<string, AttemptEntry>;
}

/** A delivery in the list, as the API answers it (declared once, in answer.ts). */
export type DeliveryView = DeliveryAnswer;

/** The single-delivery read: the list's fields, with `attempts` as the history and the count beside it. */
export type DeliveryDetail = DeliveryDetailAnswer;

export const deliveryIdFor = (eventId: string): string => `dlv_${eventId.slice('evt_'.length)}`;

const key = (agentId: string, deliveryId: string) => keys.delivery(agentId, deliveryId);

/**
 * The statuses the DeliveriesByStatus index holds: it keeps failures only (docs/api.md,
 * "?status="). `failed`, and `pending` once an attempt has failed (a record waiting for its retry);
 * a success removes the entry, so a delivery that succeeds at once never writes one. Records made
 * before this (with a `succeeded` entry, or a `pending` one before any attempt) stay readable: no
 * list reads the `succeeded` partition any more, and the others filter on the record's status.
 */
export type IndexedStatus = Exclude<DeliveryStatus, 'succeeded'>;

export const isIndexedStatus = (status: DeliveryStatus): status is IndexedStatus => status !== 'succeeded';

/** The index attribute of a failing status (name and value); written in the write that sets the status. */
export function statusPlacement(agentId: string, status: IndexedStatus): { name: string; value: string } {
  const [[name, value]] = Object.entries(keys.deliveryStatusPlacement(agentId, status)) as [[string, string]];
  return { name, value };
}

/** The index attribute's name, for the write that removes it. */
export const statusIndexAttribute = INDEXES.deliveriesByStatus.partitionKey;

/** Scheduled attempts made so far (the rest were manual or duplicates). */
export const scheduledMade = (record: Pick<DeliveryRecord, 'attempts' | 'extra_attempts'>): number =>
  record.attempts - (record.extra_attempts ?? 0);

export function toView(record: DeliveryRecord): DeliveryView {
  const { id, event_id, event_type, status, attempts, last_status_code, last_error, next_attempt_at, created_at } =
    record;
  return {
    id,
    event_id,
    event_type,
    destination_id: record.destination_id ?? null,
    status,
    attempts,
    last_status_code,
    last_error,
    next_attempt_at,
    created_at,
    contract_id: contractOf(record.event),
    replay: id !== deliveryIdFor(event_id),
  };
}

/** The contract a contract event is about (its data's `contract_id`); null for any other. */
function contractOf(event: ServiceEvent | undefined): string | null {
  const data = event?.data as { contract_id?: unknown } | undefined;
  return typeof data?.contract_id === 'string' ? data.contract_id : null;
}

export function toDetail(record: DeliveryRecord): DeliveryDetail {
  const { attempts, ...view } = toView(record);
  return {
    ...view,
    attempt_count: attempts,
    attempts: attemptList(record.attempt_log),
    payload: (record.event as unknown as Record<string, unknown> | undefined) ?? null,
  };
}

export const deliveryFromItem = (item: Record<string, unknown>): DeliveryRecord => {
  const { [statusIndexAttribute]: _index, expires_at: _ttl, ...rest } = withoutKeys(item);
  return rest as unknown as DeliveryRecord;
};

/** A new record for an event (not written); a replay (replay/replay-job.ts) gives its own id, so the same event can be delivered again. */
export function newDelivery(
  event: ServiceEvent,
  deliveryId: string = deliveryIdFor(event.id),
  now = nowIso(),
  destinationId?: string,
): DeliveryRecord {
  return {
    id: deliveryId,
    event_id: event.id,
    event_type: event.type,
    agent_id: event.agent_id,
    ...(destinationId ? { destination_id: destinationId } : {}),
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

/** The stored item of a new record, with its expiry (and an index entry only if it starts failed: none does today). */
export function deliveryItem(record: DeliveryRecord): Record<string, unknown> {
  const failing = record.status === 'failed' || (record.status === 'pending' && record.attempts > 0);
  return {
    ...key(record.agent_id, record.id),
    entity: ENTITY.delivery,
    ...record,
    ...(failing ? keys.deliveryStatusPlacement(record.agent_id, record.status) : {}),
    expires_at: expiresAt(record.event?.created_at ?? record.created_at),
  };
}

/** Where the relay's record for an event lives (the id derived from the event's). */
export const relayDeliveryKey = (event: Pick<ServiceEvent, 'id' | 'agent_id'>) =>
  key(event.agent_id, deliveryIdFor(event.id));

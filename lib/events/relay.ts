/**
 * Outbox rows → delivery messages, and replay pages (replay/replay-job.ts) → a page of them. A row passes the
 * filter only if its agent's webhook was ENABLED and subscribed when the event happened
 * (`deliver`); if it still is, the delivery record is created (once, carrying the event) and a
 * message is sent.
 *
 * Per stream batch: one strongly consistent BatchGetItem for the agents and the delivery records
 * the batch would create, one BatchWriteItem per 25 records that are missing, and
 * SendMessageBatch in groups of 10. The write is unconditional (BatchWriteItem cannot carry a
 * condition); it is safe because only the relay makes these records and the stream hands a
 * table partition's records to one relay at a time, so nothing can create a record between the
 * read that found it missing and the write (docs/events.md, "Relay"). A record that already exists
 * and is still untouched is sent again, which at worst makes a duplicate message (two POSTs of one
 * event, counted as two attempts; receivers dedupe on the event id).
 */
import type { AgentRecord } from '../agents/model.ts';
import type { TraceContext } from '../core/trace-context.ts';
import { errorFields, log } from '../observability/log.ts';
import { keyString } from '../store/batch.ts';
import * as keys from '../store/key-builders.ts';
import { ENTITY } from '../store/keys.ts';
import { itemOfImage, sequenceOf, type TableChange } from '../store/table-change.ts';
import { enqueueForDestination } from './delivery/destination-queue.ts';
import { type DeliveryMessage, enqueueDeliveries, enqueueDelivery } from './delivery/queue.ts';
import { type DeliveryRecord, deliveryFromItem, newDelivery, relayDeliveryKey } from './delivery/record.ts';
import { createDeliveries, ensureDelivery, readAgentsAndDeliveries } from './delivery/store.ts';
import { relayToDestinations, sendToDestinationQueue } from './destination-relay.ts';
import { acceptsDelivery } from './feed/agent-gate.ts';
import type { ServiceEvent } from './feed/event.ts';
import { eventFromItem } from './feed/outbox.ts';
import { pageFromImage, replayPage } from './replay/replay-job.ts';
import { matchesFilter } from './stream-filter.ts';

type Row =
  | { kind: 'event'; event: ServiceEvent; image: Record<string, unknown> }
  | { kind: 'replay'; image: Record<string, unknown> }
  | { kind: 'verify'; image: Record<string, unknown> };

/** An event row of the batch: the event, whether the webhook's filter refused it, and the trace that caused it. */
interface RelayedEvent {
  i: number;
  event: ServiceEvent;
  webhookFiltered: boolean;
  trace: TraceContext | undefined;
}

/** The trace an event row carries (feed/store.ts), if it is one. */
function traceOfItem(image: Record<string, unknown>): TraceContext | undefined {
  const trace = image['trace'] as TraceContext | undefined;
  return typeof trace?.traceparent === 'string' ? trace : undefined;
}

/** One delivery record the batch needs, with the rows (stream records) that name it. */
interface Planned {
  record: DeliveryRecord;
  created: boolean;
  rows: number[];
}

export async function relayBatch(records: readonly TableChange[]): Promise<string[]> {
  const failed = new Set<number>();
  const fail = (i: number, err: unknown) => {
    log.error('relay: record failed', {
      sequence: sequenceOf(records[i]!),
      ...errorFields(err),
    });
    failed.add(i);
  };
  // An image that cannot be read fails its own record, not the batch.
  const rows = records.map((record, i): Row | undefined => {
    if (!matchesFilter(record)) return undefined;
    try {
      const image = itemOfImage(record.dynamodb?.NewImage)!;
      if (image['entity'] === ENTITY.replayPage) return { kind: 'replay', image };
      if (image['entity'] === ENTITY.destinationVerifyRequest) return { kind: 'verify', image };
      return { kind: 'event', event: eventFromItem(image), image };
    } catch (err) {
      fail(i, err);
      return undefined;
    }
  });
  const events = rows.flatMap((row, i) =>
    row?.kind === 'event'
      ? [
          {
            i,
            event: row.event,
            webhookFiltered: row.image['webhook_filtered'] === true,
            trace: traceOfItem(row.image),
          },
        ]
      : [],
  );

  let found: Map<string, Record<string, unknown>>;
  try {
    found = await readAgentsAndDeliveries(
      events.map(({ event }) => event.agent_id),
      events.map(({ event }) => relayDeliveryKey(event)),
    );
  } catch (err) {
    for (let i = 0; i < records.length; i++) fail(i, err);
    return sequencesOf(records, failed);
  }

  const planned = planDeliveries(events, found);
  const toCreate = [...planned.values()].filter((p) => p.created);
  try {
    await createDeliveries(toCreate.map((p) => p.record));
  } catch (err) {
    // Some may have been written: the retried rows find those and send them.
    for (const p of toCreate) for (const i of p.rows) fail(i, err);
  }
  const toSend = [...planned.values()].flatMap((p) =>
    p.rows.some((i) => failed.has(i)) || !untouched(p.record) ? [] : [{ message: messageOf(p.record), rows: p.rows }],
  );

  await Promise.all(
    rows.map(async (row, i) => {
      if (row?.kind === 'verify') {
        // A destination's verification request (lib/destinations/store.ts): its message, for the destinations' worker.
        const { agent_id, destination_id, requested_at } = row.image as {
          agent_id: string;
          destination_id: string;
          requested_at?: number;
        };
        await enqueueForDestination({
          agent_id,
          destination_id,
          verify: true,
          ...(typeof requested_at === 'number' ? { requested_at } : {}),
        }).catch((err: unknown) => fail(i, err));
        return;
      }
      if (row?.kind !== 'replay') return;
      try {
        await replayPage(pageFromImage(row.image), sendOne);
      } catch (err) {
        fail(i, err);
      }
    }),
  );
  // The agents' AWS destinations (destination-relay.ts), beside their webhooks.
  const toDestinations = await relayToDestinations(events, (id) => found.get(keyString(keys.agent(id))));
  for (const [i, err] of toDestinations) fail(i, err);
  const unsent = await enqueueDeliveries(toSend.map((m) => m.message));
  for (const index of unsent.failed) {
    for (const i of toSend[index]!.rows) fail(i, new Error(unsent.errors.get(index) ?? 'not sent'));
  }
  return sequencesOf(records, failed);
}

/**
 * The record each deliverable event needs: the one found, or a new one to create. Events whose
 * webhook was disabled or unsubscribed since get none (they stay in the feed); an event the batch
 * names twice gets one record and one message.
 */
function planDeliveries(
  events: readonly RelayedEvent[],
  found: Map<string, Record<string, unknown>>,
): Map<string, Planned> {
  const planned = new Map<string, Planned>();
  for (const { i, event, webhookFiltered, trace } of events) {
    // The webhook's filter refused it when it was made (feed/outbox.ts): no record, no message, no POST.
    if (webhookFiltered) continue;
    const agent = found.get(keyString(keys.agent(event.agent_id))) as AgentRecord | undefined;
    if (!acceptsDelivery(agent, event.type)) continue;
    const at = keyString(relayDeliveryKey(event));
    const same = planned.get(at);
    if (same) {
      same.rows.push(i);
      continue;
    }
    const existing = found.get(at);
    planned.set(
      at,
      existing
        ? { record: deliveryFromItem(existing), created: false, rows: [i] }
        : { record: { ...newDelivery(event), ...(trace ? { trace } : {}) }, created: true, rows: [i] },
    );
  }
  return planned;
}

/** Nothing has happened to it yet, so a message for it may (again) be sent: a crash between record and message must not strand it. */
const untouched = (record: DeliveryRecord): boolean => record.status === 'pending' && record.attempts === 0;

const messageOf = (record: DeliveryRecord): DeliveryMessage => ({
  agent_id: record.agent_id,
  delivery_id: record.id,
  event_id: record.event_id,
});

/** A replay page's events, one at a time (replay/replay-job.ts checks each agent itself), with their own delivery ids. */
async function sendOne(event: ServiceEvent, deliveryId: string, destinationId?: string): Promise<boolean> {
  if (destinationId !== undefined) return sendToDestinationQueue(event, destinationId, deliveryId);
  const { record, created } = await ensureDelivery(event, deliveryId);
  if (!created && !untouched(record)) return false;
  await enqueueDelivery(messageOf(record));
  return true;
}

/** The sequence numbers that failed (the stream is retried from the earliest one). */
function sequencesOf(records: readonly TableChange[], failed: Set<number>): string[] {
  return [...failed].sort((a, b) => a - b).map((i) => sequenceOf(records[i]!));
}

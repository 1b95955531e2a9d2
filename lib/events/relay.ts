/**
 * Outbox rows → delivery messages, and replay pages (replay.ts) → a page of them. A row passes the
 * filter only if its agent's webhook was ENABLED and subscribed when the event happened
 * (`deliver`); if it still is, the delivery record is created (once, conditionally, carrying the
 * event) and a message is sent.
 *
 * Per stream batch: one BatchGetItem for the agents, one conditional PutItem per record (a
 * BatchWriteItem cannot be conditional, and an unconditional put of a record the stream hands
 * over twice would wipe attempts already made), and SendMessageBatch in groups of 10. A record
 * that is still untouched is sent again, which at worst makes a duplicate message (two POSTs of
 * one event, counted as two attempts; receivers dedupe on the event id).
 */
import type { AgentRecord } from '../agents/model.ts';
import { log } from '../log.ts';
import { batchGet, keyString } from '../store/batch.ts';
import { ENTITY, keys } from '../store/keys.ts';
import { itemOfImage, sequenceOf, type TableChange } from '../store/table-change.ts';
import { acceptsDelivery } from './agents.ts';
import { ensureDelivery } from './deliveries.ts';
import { eventFromItem } from './outbox.ts';
import { enqueueDeliveries, enqueueDelivery, type DeliveryMessage } from './queue.ts';
import { pageFromImage, replayPage } from './replay.ts';
import { matchesFilter } from './stream-filter.ts';
import type { ServiceEvent } from './types.ts';

type Row = { kind: 'event'; event: ServiceEvent } | { kind: 'replay'; image: Record<string, unknown> };

export async function relayBatch(records: readonly TableChange[]): Promise<string[]> {
  const failed = new Set<number>();
  const fail = (i: number, err: unknown) => {
    log.error('relay: record failed', { sequence: sequenceOf(records[i]!), error: err instanceof Error ? err.message : String(err) });
    failed.add(i);
  };
  // An image that cannot be read fails its own record, not the batch.
  const rows = records.map((record, i): Row | undefined => {
    if (!matchesFilter(record)) return undefined;
    try {
      const image = itemOfImage(record.dynamodb?.NewImage)!;
      return image['entity'] === ENTITY.replayPage ? { kind: 'replay', image } : { kind: 'event', event: eventFromItem(image) };
    } catch (err) {
      fail(i, err);
      return undefined;
    }
  });

  let agents: Map<string, Record<string, unknown>>;
  try {
    agents = await batchGet([...new Set(rows.flatMap((r) => (r?.kind === 'event' ? [r.event.agent_id] : [])))].map(keys.agent), { consistent: true });
  } catch (err) {
    records.forEach((_, i) => fail(i, err));
    return sequencesOf(records, failed);
  }

  const messages = await Promise.all(
    rows.map(async (row, i): Promise<DeliveryMessage | undefined> => {
      if (!row) return undefined;
      try {
        if (row.kind === 'replay') {
          await replayPage(pageFromImage(row.image), sendOne);
          return undefined;
        }
        return await deliveryFor(row.event, agents.get(keyString(keys.agent(row.event.agent_id))) as AgentRecord | undefined);
      } catch (err) {
        fail(i, err);
        return undefined;
      }
    }),
  );
  const toSend = messages.flatMap((message, i) => (message ? [{ message, i }] : []));
  const unsent = await enqueueDeliveries(toSend.map((m) => m.message));
  for (const index of unsent.failed) fail(toSend[index]!.i, new Error(unsent.errors.get(index) ?? 'not sent'));
  return sequencesOf(records, failed);
}

/** The message to send for an event, if it is to be delivered and nothing has happened to it yet. */
async function deliveryFor(event: ServiceEvent, agent: AgentRecord | undefined): Promise<DeliveryMessage | undefined> {
  // Disabled or unsubscribed since the event: not delivered (the event stays in the feed).
  if (!acceptsDelivery(agent, event.type)) return undefined;
  return messageFor(event);
}

/** A delivery record (created once, conditionally) and its message, unless something already happened to it. */
async function messageFor(event: ServiceEvent, deliveryId?: string): Promise<DeliveryMessage | undefined> {
  const { record: delivery, created } = await ensureDelivery(event, deliveryId);
  if (!created && (delivery.status !== 'pending' || delivery.attempts > 0)) return undefined;
  return { agent_id: event.agent_id, delivery_id: delivery.id, event_id: event.id };
}

/** A replay page's events, one at a time (replay.ts checks each agent itself), with their own delivery ids. */
async function sendOne(event: ServiceEvent, deliveryId: string): Promise<boolean> {
  const message = await messageFor(event, deliveryId);
  if (message) await enqueueDelivery(message);
  return message !== undefined;
}

/** The sequence numbers that failed (the stream is retried from the earliest one). */
function sequencesOf(records: readonly TableChange[], failed: Set<number>): string[] {
  return [...failed].sort((a, b) => a - b).map((i) => sequenceOf(records[i]!));
}

import { log } from '../log.ts';
import { ENTITY } from '../store/keys.ts';
import { itemOfImage, sequenceOf, type TableChange } from '../store/table-change.ts';
import { acceptsDelivery, readAgent } from './agents.ts';
import { ensureDelivery } from './deliveries.ts';
import { eventFromItem } from './outbox.ts';
import { enqueueDelivery } from './queue.ts';
import { pageFromImage, replayPage } from './replay.ts';
import { matchesFilter } from './stream-filter.ts';
import type { ServiceEvent } from './types.ts';

/**
 * Outbox rows → delivery messages, and replay pages (replay.ts) → a page of them. A row passes the filter only if its agent's webhook was
 * ENABLED and subscribed when the event happened (`deliver`); if it still is, the delivery record
 * is created (once, conditionally) and a message is sent. The stream may hand a record over
 * twice; a record that is still untouched is sent again, which at worst makes a duplicate
 * message that the delivery worker drops.
 */
export async function relayRecord(record: TableChange): Promise<'enqueued' | 'skipped'> {
  if (!matchesFilter(record)) return 'skipped';
  const image = itemOfImage(record.dynamodb?.NewImage)!;
  if (image['entity'] === ENTITY.replayPage) return (await replayPage(pageFromImage(image), sendToDelivery)) > 0 ? 'enqueued' : 'skipped';
  const event = eventFromItem(image);
  const agent = await readAgent(event.agent_id);
  // Disabled or unsubscribed since the event: not delivered (the event stays in the feed).
  if (!acceptsDelivery(agent, event.type)) return 'skipped';
  return (await sendToDelivery(event)) ? 'enqueued' : 'skipped';
}

/**
 * An event into a delivery record (created once, conditionally) and a message. A record that is
 * still untouched is sent again (the stream may hand a record over twice); the worker drops the
 * duplicate message. Replays use it too, with their own delivery ids.
 */
async function sendToDelivery(event: ServiceEvent, deliveryId?: string): Promise<boolean> {
  const { record: delivery, created } = await ensureDelivery(event, deliveryId);
  if (!created && (delivery.status !== 'pending' || delivery.attempts > 0 || delivery.owner_message)) return false;
  await enqueueDelivery({ agent_id: event.agent_id, delivery_id: delivery.id, event_id: event.id });
  return true;
}

/** A batch, with the sequence numbers that failed (the stream is retried from the earliest one). */
export async function relayBatch(records: readonly TableChange[]): Promise<string[]> {
  const results = await Promise.allSettled(records.map(relayRecord));
  const failed: string[] = [];
  results.forEach((result, i) => {
    if (result.status === 'fulfilled') return;
    const sequence = sequenceOf(records[i]!);
    log.error('relay: record failed', { sequence, error: result.reason instanceof Error ? result.reason.message : String(result.reason) });
    failed.push(sequence);
  });
  return failed;
}

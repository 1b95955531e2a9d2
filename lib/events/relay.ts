import { log } from '../log.ts';
import { itemOfImage, sequenceOf, type TableChange } from '../store/table-change.ts';
import { acceptsDelivery, readAgent } from './agents.ts';
import { ensureDelivery } from './deliveries.ts';
import { eventFromItem } from './outbox.ts';
import { enqueueDelivery } from './queue.ts';
import { matchesFilter } from './stream-filter.ts';

/**
 * Outbox rows → delivery messages. A row passes the filter only if its agent's webhook was
 * ENABLED and subscribed when the event happened (`deliver`); if it still is, the delivery record
 * is created (once, conditionally) and a message is sent. The stream may hand a record over
 * twice; a record that is still untouched is sent again, which at worst makes a duplicate
 * message that the delivery worker drops.
 */
export async function relayRecord(record: TableChange): Promise<'enqueued' | 'skipped'> {
  if (!matchesFilter(record)) return 'skipped';
  const event = eventFromItem(itemOfImage(record.dynamodb?.NewImage)!);
  const agent = await readAgent(event.agent_id);
  // Disabled or unsubscribed since the event: not delivered (the event stays in the feed).
  if (!acceptsDelivery(agent, event.type)) return 'skipped';
  const { record: delivery, created } = await ensureDelivery(event);
  if (!created && (delivery.status !== 'pending' || delivery.attempts > 0 || delivery.owner_message)) return 'skipped';
  await enqueueDelivery({ agent_id: event.agent_id, delivery_id: delivery.id, event_id: event.id });
  return 'enqueued';
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

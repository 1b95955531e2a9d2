import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { AgentRecord } from '../agents/model.ts';
import { log } from '../log.ts';
import { batchGet, keyString } from '../store/batch.ts';
import { keys } from '../store/keys.ts';
import { acceptsDelivery } from './agents.ts';
import { ensureDelivery } from './deliveries.ts';
import { eventFromItem } from './outbox.ts';
import { enqueueDeliveries, type DeliveryMessage } from './queue.ts';
import { matchesFilter } from './stream-filter.ts';
import type { ServiceEvent } from './types.ts';

/**
 * Outbox rows → delivery messages. A row passes the filter only if its agent's webhook was
 * ENABLED and subscribed when the event happened (`deliver`); if it still is, the delivery record
 * is created (once, conditionally, carrying the event) and a message is sent.
 *
 * Per stream batch: one BatchGetItem for the agents, one conditional PutItem per record (a
 * BatchWriteItem cannot be conditional, and an unconditional put of a record the stream hands
 * over twice would wipe attempts already made), and SendMessageBatch in groups of 10. A record
 * that is still untouched is sent again, which at worst makes a duplicate message (two POSTs of
 * one event, counted as two attempts; receivers dedupe on the event id).
 */
export async function relayBatch(records: readonly DynamoDBRecord[]): Promise<string[]> {
  const failed = new Set<number>();
  const fail = (i: number, err: unknown) => {
    log.error('relay: record failed', { sequence: records[i]!.dynamodb?.SequenceNumber ?? '', error: err instanceof Error ? err.message : String(err) });
    failed.add(i);
  };
  // An image that cannot be read fails its own record, not the batch.
  const rows = records.map((record, i) => {
    if (!matchesFilter(record)) return undefined;
    try {
      return eventFromItem(unmarshall(record.dynamodb!.NewImage as Record<string, AttributeValue>));
    } catch (err) {
      fail(i, err);
      return undefined;
    }
  });

  let agents: Map<string, Record<string, unknown>>;
  try {
    agents = await batchGet([...new Set(rows.flatMap((e) => (e ? [e.agent_id] : [])))].map(keys.agent), { consistent: true });
  } catch (err) {
    records.forEach((_, i) => fail(i, err));
    return sequencesOf(records, failed);
  }

  const messages = await Promise.all(
    rows.map(async (event, i): Promise<DeliveryMessage | undefined> => {
      if (!event) return undefined;
      try {
        return await deliveryFor(event, agents.get(keyString(keys.agent(event.agent_id))) as AgentRecord | undefined);
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
  const { record: delivery, created } = await ensureDelivery(event);
  if (!created && (delivery.status !== 'pending' || delivery.attempts > 0)) return undefined;
  return { agent_id: event.agent_id, delivery_id: delivery.id, event_id: event.id };
}

/** The sequence numbers that failed (the stream is retried from the earliest one). */
function sequencesOf(records: readonly DynamoDBRecord[], failed: Set<number>): string[] {
  return [...failed].sort((a, b) => a - b).map((i) => records[i]!.dynamodb?.SequenceNumber ?? '');
}

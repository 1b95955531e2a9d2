/**
 * The relay's part for AWS destinations (relay.ts calls it with the batch's events and the agents
 * it read): an event whose agent has destinations gets one delivery record per ENABLED destination
 * subscribed to its kind (the test event goes to every ENABLED one), created once (conditional put,
 * id derived from the event and the destination), and a message on the destinations' queue. Agents
 * without destinations (`destination_count` absent or 0) cost nothing more.
 */
import { createHash } from 'node:crypto';
import type { AgentRecord } from '../agents/model.ts';
import { idAt } from '../core/ids.ts';
import type { TraceContext } from '../core/trace-context.ts';
import type { DestinationRecord } from '../destinations/model.ts';
import { listDestinationsOf } from '../destinations/store.ts';
import { enqueueForDestination } from './delivery/destination-queue.ts';
import { ensureDelivery } from './delivery/store.ts';
import { hasDestinations, TEST_EVENT_TYPE } from './feed/agent-gate.ts';
import type { ServiceEvent } from './feed/event.ts';
import { positionOf } from './feed/position.ts';
import { passesFilter } from './feed/subscription-filter.ts';

/** At the event's position, so the delivery list shows it beside the event's webhook delivery. */
export const destinationDeliveryId = (destinationId: string, eventId: string): string =>
  idAt('dlv', positionOf(eventId), createHash('sha256').update(`${destinationId}:${eventId}`).digest());

export const destinationAccepts = (d: DestinationRecord, type: string): boolean =>
  d.status === 'ENABLED' && (type === TEST_EVENT_TYPE || (d.events as string[]).includes(type));

/** Subscribed, and its filter (at its pins) passes the event: only then a record and a message. */
const destinationTakes = (d: DestinationRecord, event: ServiceEvent): boolean =>
  destinationAccepts(d, event.type) && passesFilter(filterWhenMade(d, event), event, d.schema_versions);

/** The filter the destination had when the event was made: a change applies to events made after it. */
const filterWhenMade = (d: DestinationRecord, event: ServiceEvent) =>
  d.filter_since !== undefined && event.created_at < d.filter_since ? d.previous_filter : d.filter;

/** Returns the indexes (into `events`) whose deliveries could not all be made; the stream retries those. */
export async function relayToDestinations(
  events: readonly { i: number; event: ServiceEvent; trace?: TraceContext | undefined }[],
  agentOf: (agentId: string) => Record<string, unknown> | undefined,
): Promise<Map<number, unknown>> {
  const failed = new Map<number, unknown>();
  const lists = new Map<string, Promise<DestinationRecord[]>>();
  await Promise.all(
    events.map(async ({ i, event, trace }) => {
      const agent = agentOf(event.agent_id);
      if (!hasDestinations(agent as AgentRecord | undefined)) return;
      try {
        if (!lists.has(event.agent_id)) lists.set(event.agent_id, listDestinationsOf(event.agent_id));
        const destinations = (await lists.get(event.agent_id)!).filter((d) => destinationTakes(d, event));
        for (const destination of destinations)
          await sendToDestinationQueue(event, destination.id, destinationDeliveryId(destination.id, event.id), trace);
      } catch (err) {
        failed.set(i, err);
      }
    }),
  );
  return failed;
}

/** The record (created once) and its message; false when the record exists and was already attempted. */
export async function sendToDestinationQueue(
  event: ServiceEvent,
  destinationId: string,
  deliveryId: string,
  trace?: TraceContext,
): Promise<boolean> {
  const { record, created } = await ensureDelivery(event, deliveryId, destinationId, trace);
  if (!created && !(record.status === 'pending' && record.attempts === 0)) return false;
  await enqueueForDestination({
    agent_id: record.agent_id,
    destination_id: destinationId,
    delivery_id: record.id,
    event_id: record.event_id,
  });
  return true;
}

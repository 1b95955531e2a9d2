import type { Caller } from '../core/caller.ts';
import { AppError, notFound } from '../core/errors.ts';
import { ownAgent } from '../agents/agents.ts';
import { listDeliveries, readDelivery, toView, type DeliveryPage, type DeliveryView } from './deliveries.ts';
import { resetForRetry } from './delivery-lease.ts';
import { listEvents, type EventPage } from './feed.ts';
import { enqueueDelivery } from './queue.ts';

/** The event and delivery routes, for the owner of the agent only (404 for everyone else). */
export async function agentEvents(caller: Caller, agentId: string, after: string | undefined, limit: number): Promise<EventPage> {
  // The ownership read is also the feed's counter read (feed.ts).
  return listEvents(await ownAgent(caller, agentId), after, limit);
}

export async function agentDeliveries(caller: Caller, agentId: string, cursor: string | undefined, limit: number): Promise<DeliveryPage> {
  await ownAgent(caller, agentId);
  return listDeliveries(agentId, cursor, limit);
}

/** A manual retry: back to pending with one more attempt, and a fresh message that is due now. */
export async function retryAgentDelivery(caller: Caller, agentId: string, deliveryId: string): Promise<DeliveryView> {
  const agent = await ownAgent(caller, agentId);
  const existing = await readDelivery(agentId, deliveryId);
  if (!existing) throw notFound('Delivery');
  if (agent.webhook_status !== 'ENABLED') {
    throw new AppError('webhook_not_configured', 'The agent has no enabled webhook: configure and verify it before retrying a delivery.');
  }
  const record = await resetForRetry(agentId, deliveryId);
  await enqueueDelivery({ agent_id: agentId, delivery_id: record.id, event_id: record.event_id });
  return toView(record);
}

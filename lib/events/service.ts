/** The event and delivery routes, for the owner of the agent only (404 for everyone else). */

import { ownAgent } from '../agents/agents.ts';
import type { AgentView } from '../agents/model.ts';
import { disableWebhook } from '../agents/webhook-config.ts';
import type { Caller } from '../core/caller.ts';
import { AppError, notFound } from '../core/errors.ts';
import { readDestination } from '../destinations/store.ts';
import type { CommitAlong } from '../store/transact.ts';
import { enqueueForDestination } from './delivery/destination-queue.ts';
import { enqueueDelivery } from './delivery/queue.ts';
import { type DeliveryDetail, type DeliveryStatus, type DeliveryView, toDetail, toView } from './delivery/record.ts';
import {
  commitManualRetryAnswer,
  type DeliveryPage,
  listDeliveries,
  readDelivery,
  reopenFailed,
} from './delivery/store.ts';
import { announceSafely, announceWebhookDisabled } from './feed/operational.ts';
import { type EventPage, listEvents } from './feed/reader.ts';

export async function agentEvents(
  caller: Caller,
  agentId: string,
  after: string | undefined,
  limit: number,
): Promise<EventPage> {
  // The ownership read is also the feed's counter read (feed/reader.ts).
  return listEvents(await ownAgent(caller, agentId), after, limit);
}

export async function agentDeliveries(
  caller: Caller,
  agentId: string,
  query: { cursor?: string | undefined; limit: number; status?: DeliveryStatus | undefined },
): Promise<DeliveryPage> {
  await ownAgent(caller, agentId);
  return listDeliveries(agentId, query.cursor, query.limit, query.status);
}

export async function agentDelivery(caller: Caller, agentId: string, deliveryId: string): Promise<DeliveryDetail> {
  await ownAgent(caller, agentId);
  const record = await readDelivery(agentId, deliveryId);
  if (!record) throw notFound('Delivery');
  return toDetail(record);
}

export const notEnabled = (what: string) =>
  new AppError('webhook_not_configured', `The agent has no enabled webhook: configure and verify it before ${what}.`);

/**
 * A manual retry (docs/webhooks.md, "Manual retry"): one extra attempt now, which never uses up
 * or moves the scheduled ones. A failed delivery goes back to pending for it; a succeeded one is
 * refused unless `force`.
 */
export async function retryAgentDelivery(
  caller: Caller,
  agentId: string,
  deliveryId: string,
  force: boolean,
  along?: CommitAlong<DeliveryView>,
): Promise<DeliveryView> {
  const agent = await ownAgent(caller, agentId);
  let record = await readDelivery(agentId, deliveryId);
  if (!record) throw notFound('Delivery');
  const destinationId = record.destination_id;
  if (destinationId !== undefined) {
    if ((await readDestination(agentId, destinationId))?.status !== 'ENABLED')
      throw new AppError(
        'webhook_not_configured',
        'Its destination is no longer ENABLED: verify it again before retrying.',
      );
  } else if (agent.webhook_status !== 'ENABLED') throw notEnabled('retrying a delivery');
  if (record.status === 'succeeded' && !force) {
    throw new AppError('invalid_transition', 'This delivery already succeeded; send {"force": true} to send it again.');
  }
  // Failed a moment ago, or still failed: back to pending. Another request may have reopened it first.
  if (record.status === 'failed')
    record = (await reopenFailed(agentId, deliveryId)) ?? (await readDelivery(agentId, deliveryId)) ?? record;
  const message = {
    agent_id: agentId,
    delivery_id: record.id,
    event_id: record.event_id,
    manual: true as const,
    ...(force ? { force: true as const } : {}),
  };
  if (destinationId !== undefined) await enqueueForDestination({ ...message, destination_id: destinationId });
  else await enqueueDelivery(message);
  const view = toView(record);
  // After the message is sent: an answer committed before would claim an attempt that may never be made.
  await commitManualRetryAnswer(along?.(view));
  return view;
}

/**
 * DELETE …/webhook: the webhook DISABLED (lib/agents), then, if it was not already, the
 * `agent.webhook.disabled` operational event with reason `manual` to every agent of the account.
 */
export async function disableWebhookAndAnnounce(
  caller: Caller,
  agentId: string,
  along?: CommitAlong<AgentView>,
): Promise<AgentView> {
  const before = await ownAgent(caller, agentId);
  const view = await disableWebhook(caller, agentId, along);
  if (before.webhook_status !== 'DISABLED')
    await announceSafely('agent.webhook.disabled', before, () =>
      announceWebhookDisabled(before, 'manual', 'The owner disabled the webhook (DELETE …/webhook).'),
    );
  return view;
}

/**
 * Operational events (docs/webhooks.md, "Operational events"): `agent.webhook.disabled` and
 * `agent.webhook.failing`, told to every agent of the account, the one it is about included. Each
 * gets a copy in its feed through the outbox like every event (checked against the catalog
 * there); the copies of agents whose webhook is ENABLED are delivered, whatever they subscribe
 * to, so the owner hears of a dead endpoint on one that works.
 *
 * Written after the change they report, in transactions of OPERATIONAL_CHUNK copies (an account
 * has up to 100 agents, a transaction at most 100 items): a failure here is retried by the caller's
 * own retry (the delivery batch, or the owner's request) and logged, never undoes the change.
 */
import type { AgentRecord } from '../../agents/model.ts';
import { listAgentsOf } from '../../agents/store.ts';
import type { OperationalEventType } from '../../core/event-types.ts';
import { MAX_AGENTS_PER_ACCOUNT } from '../../core/settings.ts';
import type { Filter } from '../../filters/filter.ts';
import { errorFields, log } from '../../observability/log.ts';
import { commitWithEvents } from './outbox.ts';

const OPERATIONAL_CHUNK = 50;

type Subject = Pick<AgentRecord, 'id' | 'name' | 'webhook_url'>;

export type DisabledReason = 'endpoint_gone' | 'consecutive_failures' | 'manual';

async function announce(
  subject: AgentRecord,
  type: OperationalEventType,
  data: Record<string, unknown>,
): Promise<void> {
  const { agents } = await listAgentsOf(subject.owner_id, MAX_AGENTS_PER_ACCOUNT);
  const recipients = [subject.id, ...agents.map((a) => a.id).filter((id) => id !== subject.id)];
  const payload = { agent_id: subject.id, agent_name: subject.name, webhook_url: subject.webhook_url, ...data };
  for (let i = 0; i < recipients.length; i += OPERATIONAL_CHUNK) {
    await commitWithEvents(() => [], { agentIds: recipients.slice(i, i + OPERATIONAL_CHUNK), type, data: payload });
  }
}

export function announceWebhookDisabled(subject: AgentRecord, reason: DisabledReason, message: string): Promise<void> {
  return announce(subject, 'agent.webhook.disabled', { reason, message });
}

export function announceWebhookFailing(subject: AgentRecord, failures: number): Promise<void> {
  return announce(subject, 'agent.webhook.failing', {
    failures,
    message: `${failures} delivery attempts in a row failed; deliveries to this webhook are paused and retried (its circuit is open).`,
  });
}

export function announceWebhookUnverified(subject: AgentRecord, failures: number): Promise<void> {
  return announce(subject, 'agent.webhook.unverified', {
    failures,
    last_verified_at: subject.last_verified_at ?? null,
    message: `The webhook failed its periodic re-verification ${failures} times in a row and is PENDING_VERIFICATION again: verify it (POST …/webhook/verify) to resume deliveries.`,
  });
}

/** For callers that must not fail on the announcement (the change it reports is committed). */
export async function announceSafely(
  what: string,
  subject: Pick<AgentRecord, 'id'>,
  run: () => Promise<void>,
): Promise<void> {
  try {
    await run();
  } catch (err) {
    log.error(`operational event not written: ${what}`, { agentId: subject.id, ...errorFields(err) });
  }
}

/**
 * A subscription's filter was set, changed or removed (docs/webhooks.md, "Filters"): recorded in
 * the agent's own feed only (the change is the owner's own doing, so the other agents need not
 * hear of it), after the change, like the other operational events.
 */
export function announceFilterChanged(
  subject: Subject,
  change: { destinationId?: string; filter: Filter | null; neverMatches: boolean },
): Promise<void> {
  const where = change.destinationId ? `destination ${change.destinationId}` : 'webhook';
  return commitWithEvents(() => [], {
    agentIds: [subject.id],
    type: 'agent.filter.changed',
    data: {
      agent_id: subject.id,
      agent_name: subject.name,
      webhook_url: subject.webhook_url,
      subscription: change.destinationId ? 'destination' : 'webhook',
      destination_id: change.destinationId ?? null,
      filter: change.filter,
      never_matches: change.neverMatches,
      message: change.filter
        ? `The ${where}'s filter changed; it applies to events made after this one.${change.neverMatches ? ' No event of its kinds can pass it.' : ''}`
        : `The ${where}'s filter was removed: every subscribed event is sent again.`,
    },
  }).then(() => undefined);
}

/** The route's side (PATCH …/webhook, the destinations' routes): announced after the committed change, never failing it. */
export const noteFilterChanged = (
  subject: Subject,
  change: Parameters<typeof announceFilterChanged>[1],
): Promise<void> => announceSafely('agent.filter.changed', subject, () => announceFilterChanged(subject, change));

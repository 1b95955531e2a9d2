/**
 * The outbox: a state change and one event row per party agent in one transaction. The table's
 * stream then carries each row to the relay, so a committed event cannot be lost by a process
 * dying before anything is sent.
 *
 * Each event first takes its agent's next feed slot (position.ts), then the transaction
 * fills the slot only if it is still empty. A transaction that fails leaves no empty slot
 * behind: the writer fills its slots with gap markers at once, so readers do not wait for them.
 *
 * Each row also records `deliver`: whether the agent's webhook was ENABLED and subscribed to the
 * kind when the slot was taken. The stream filter passes only rows with `deliver = true`.
 */
import { InvariantError } from '../../core/errors.ts';
import { EVENT_SCHEMA_VERSIONS } from '../../core/event-types.ts';
import { nowIso } from '../../core/time.ts';
import { currentTrace } from '../../core/trace-context.ts';
import { withDeadlineGrace } from '../../store/call-deadline.ts';
import { alongLost, alongRefused, type TransactItem, type TransactResult } from '../../store/transact.ts';
import { acceptsDelivery, hasDestinations } from './agent-gate.ts';
import type { FeedEventType, ServiceEvent } from './event.ts';
import { assertEventData } from './event-check.ts';
import { eventIdAt } from './position.ts';
import { commitEventRows, fillGap, takeTicket } from './store.ts';
import { passesWebhookFilter } from './subscription-filter.ts';

export interface EventsToAppend {
  agentIds: readonly string[];
  type: FeedEventType;
  data: ServiceEvent['data'];
}

/** How long past its deadline a cut-off writer may take to fill its slots: one conditional put per party, well inside the answer's reserve. */
const GAP_FILL_GRACE_MS = 500;

/** A writer whose slots were given away (it was slower than GAP_GRACE_MS) starts again; twice is already rare. */
const MAX_ATTEMPTS = 3;

/**
 * `change(now)` is the state change, with the time its events carry; its own condition (of its
 * first item, when it is several) decides whether it may happen. `along(now, events)`: items that
 * commit with it (store/transact.ts, CommitAlong), last in the transaction.
 */
export async function commitWithEvents(
  change: (now: string) => TransactItem | TransactItem[],
  events: EventsToAppend,
  along?: (now: string, events: ServiceEvent[]) => TransactItem[],
): Promise<{ committed: true; events: ServiceEvent[] } | { committed: false }> {
  // Checked before a slot is taken: an off-schema event fails its producer, and nothing is written.
  assertEventData(events.type, events.data);
  const parties = [...new Set(events.agentIds)];
  for (let attempt = 1; ; attempt++) {
    const tickets = (await Promise.all(parties.map((id) => takeTicket(id)))).filter((t) => t !== undefined);
    // Taken after the tickets: a reader judges an empty slot's age by the next event's created_at.
    const now = nowIso();
    const trace = currentTrace();
    const rows = tickets.map(({ agent, position }) => {
      const event: ServiceEvent = {
        id: eventIdAt(agent.id, position),
        type: events.type,
        created_at: now,
        agent_id: agent.id,
        schema_version: EVENT_SCHEMA_VERSIONS[events.type],
        data: events.data,
      };
      // The webhook's filter as the agent item is now (the ticket's read): a change applies to events made after it.
      const subscribed = acceptsDelivery(agent, events.type);
      const passes = subscribed && passesWebhookFilter(agent, event);
      return {
        event,
        position,
        // The relay judges each destination itself (destination-relay.ts); here only whether there may be one.
        deliver: passes || hasDestinations(agent),
        webhookFiltered: subscribed && !passes,
        ...(trace ? { trace } : {}),
      };
    });
    // Past the route's deadline too: the deadline is what most often cuts the commit.
    const releaseSlots = () =>
      withDeadlineGrace(GAP_FILL_GRACE_MS, () =>
        Promise.all(rows.map((row) => fillGap(row.event.agent_id, row.position))),
      );
    const alongItems =
      along?.(
        now,
        rows.map((row) => row.event),
      ) ?? [];
    let result: TransactResult;
    try {
      result = await commitEventRows([change(now)].flat(), rows, alongItems);
    } catch (err) {
      // Committed or not, the slots end filled: a gap marker cannot replace a committed event.
      await releaseSlots().catch(() => undefined);
      throw err;
    }
    if (result.ok) return { committed: true, events: rows.map((row) => row.event) };
    await releaseSlots();
    if (alongRefused(result.reasons, alongItems.length)) throw alongLost();
    if (result.reasons[0] === 'ConditionalCheckFailed') return { committed: false };
    if (attempt >= MAX_ATTEMPTS) throw new InvariantError('feed slots were given away on every attempt');
  }
}

/** The event object of docs/api.md from a stored row (or a stream image of one). */
export function eventFromItem(item: Record<string, unknown>): ServiceEvent {
  return {
    id: item['id'] as string,
    type: item['type'] as FeedEventType,
    created_at: item['created_at'] as string,
    agent_id: item['agent_id'] as string,
    // Events written before versions were carried are of each kind's first version.
    schema_version: typeof item['schema_version'] === 'number' ? item['schema_version'] : 1,
    data: item['data'] as ServiceEvent['data'],
  };
}

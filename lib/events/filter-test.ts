/**
 * POST …/filters/test (docs/webhooks.md, "Filters"): a filter, or the subscription's own, against
 * one event as the subscription would receive it (at its pinned schema versions), answering whether
 * it matched and, when not, the clause that decided it. Changes nothing.
 */
import { ownAgent } from '../agents/agents.ts';
import type { Caller } from '../core/caller.ts';
import { notFound, validationError } from '../core/errors.ts';
import { EVENT_SCHEMA_VERSIONS } from '../core/event-types.ts';
import { atPinnedVersion, type SchemaPins } from '../core/event-versions.ts';
import { nowIso } from '../core/time.ts';
import { readDestination } from '../destinations/store.ts';
import type { FilterTestAnswer } from '../filters/answer.ts';
import { explain } from '../filters/evaluate.ts';
import type { Filter } from '../filters/filter.ts';
import { neverMatches } from '../filters/never-matches.ts';
import type { CommitAlong } from '../store/transact.ts';
import type { ServiceEvent } from './feed/event.ts';
import { eventIdAt } from './feed/position.ts';
import { readEvent } from './feed/reader.ts';
import { commitAnswerAlone } from './feed/store.ts';
import type { FilterTestInput } from './filter-test-body.ts';

/** How far back from the newest slot the newest event is looked for (gap markers are skipped). */
const NEWEST_LOOKBACK = 10;

export async function testFilter(
  caller: Caller,
  agentId: string,
  input: FilterTestInput,
  along?: CommitAlong<FilterTestAnswer>,
): Promise<FilterTestAnswer> {
  const agent = await ownAgent(caller, agentId);
  let subscription: { filter?: Filter | null; schema_versions?: SchemaPins; events: readonly string[] } = agent;
  if (input.destination_id) {
    const destination = await readDestination(agentId, input.destination_id);
    if (!destination || destination.owner_id !== caller.userId) throw notFound('Destination');
    subscription = destination;
  }
  const filter = input.filter ?? subscription.filter;
  if (!filter)
    throw validationError(
      [{ path: 'filter', message: 'Give a filter: the subscription has none.' }],
      'The request body is not valid.',
    );
  const event = input.event
    ? ({
        id: eventIdAt(agentId, 0),
        type: input.event.type,
        created_at: nowIso(),
        agent_id: agentId,
        schema_version: input.event.schema_version ?? EVENT_SCHEMA_VERSIONS[input.event.type],
        data: input.event.data,
      } satisfies ServiceEvent)
    : await agentEvent(agentId, input.event_id, agent.feed_seq ?? 0);
  const result = explain(filter, atPinnedVersion(event, subscription.schema_versions));
  const answer: FilterTestAnswer = {
    matched: result.matched,
    event_id: input.event ? null : event.id,
    failed: result.matched ? null : result.failed,
    never_matches: neverMatches(filter, subscription.events.length > 0 ? subscription.events : undefined) === 'never',
  };
  if (along) await commitAnswerAlone(along(answer));
  return answer;
}

/** The event by id, or the newest of the feed. */
async function agentEvent(agentId: string, eventId: string | undefined, newest: number): Promise<ServiceEvent> {
  if (eventId) {
    const event = await readEvent(agentId, eventId);
    if (!event) throw notFound('Event');
    return event;
  }
  for (let position = newest; position > 0 && position > newest - NEWEST_LOOKBACK; position--) {
    const event = await readEvent(agentId, eventIdAt(agentId, position));
    if (event) return event;
  }
  throw notFound('Event (the agent has no recent event: give one in `event`)');
}

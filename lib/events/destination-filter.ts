/**
 * PUT …/destinations/{destination_id}/filter (docs/webhooks.md, "Filters"): a destination's content
 * filter, set or removed. The relay judges destinations when it runs, a moment after the event was
 * made, so the change keeps the filter it replaces and when (`previous_filter`, `filter_since`): an
 * event made before the change is judged by the filter it was made under (destination-relay.ts).
 * Recorded in the agent's feed (agent.filter.changed).
 */
import type { Caller } from '../core/caller.ts';
import { notFound } from '../core/errors.ts';
import type { DestinationAnswer } from '../destinations/answer.ts';
import { updateDestinationAlong } from '../destinations/store.ts';
import type { FilterChangeInput } from '../filters/grammar.ts';
import type { CommitAlong } from '../store/transact.ts';
import { ownDestination, toDestinationView } from './destinations.ts';
import { noteFilterChanged } from './feed/operational.ts';

export async function setDestinationFilter(
  caller: Caller,
  agentId: string,
  destinationId: string,
  input: FilterChangeInput,
  along?: CommitAlong<DestinationAnswer>,
): Promise<DestinationAnswer> {
  const { agent, destination } = await ownDestination(caller, agentId, destinationId);
  const now = new Date().toISOString();
  const changed = await updateDestinationAlong(
    destination,
    {
      set: { filter: input.filter, previous_filter: destination.filter ?? null, filter_since: now, updated_at: now },
      // Only over the destination as read: a concurrent change makes the caller try again (409 below).
      condition: 'owner_id = :owner AND updated_at = :read',
      values: { ':owner': caller.userId, ':read': destination.updated_at },
    },
    (record) => (along ? along(toDestinationView(record)) : []),
  );
  if (!changed.ok) {
    if (!changed.current) throw notFound('Destination');
    return setDestinationFilter(caller, agentId, destinationId, input, along);
  }
  const view = toDestinationView(changed.record);
  await noteFilterChanged(agent, {
    destinationId,
    filter: view.filter,
    neverMatches: view.filter_never_matches,
  });
  return view;
}

/**
 * A subscription's content filter (lib/filters, docs/webhooks.md "Filters") against one event, as
 * the subscription would receive it: `data` at its pinned schema version (lib/core/event-versions.ts).
 * The test event and the operational events are not filtered (agent-gate.ts, filterApplies).
 */
import type { AgentRecord } from '../../agents/model.ts';
import { atPinnedVersion, type SchemaPins } from '../../core/event-versions.ts';
import { matches } from '../../filters/evaluate.ts';
import type { Filter } from '../../filters/filter.ts';
import { filterApplies } from './agent-gate.ts';
import type { ServiceEvent } from './event.ts';

export function passesFilter(
  filter: Filter | null | undefined,
  event: ServiceEvent,
  pins: SchemaPins | undefined,
): boolean {
  if (!filter || !filterApplies(event.type)) return true;
  return matches(filter, atPinnedVersion(event, pins));
}

export const passesWebhookFilter = (agent: AgentRecord, event: ServiceEvent): boolean =>
  passesFilter(agent.filter, event, agent.schema_versions);

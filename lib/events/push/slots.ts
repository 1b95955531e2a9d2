/**
 * What wakes the push worker: new feed slots (an event row, whatever its agent's webhook, or a gap
 * marker that lets a reader pass an abandoned slot), and the shape they reach it in. The relay's
 * event source carries this pattern beside its own (lib/events/stream-filter.ts), and the relay hands
 * the matching records over (lib/events/push-hand-off.ts), so the table's stream has two readers,
 * the relay and the search indexer, not a third for the push (docs/events.md, "Push").
 */
import { ENTITY } from '../../store/keys.ts';

export const PUSH_FILTER_PATTERN = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { entity: { S: [ENTITY.event, ENTITY.feedGap] } } },
} as const;

/** What the push worker is invoked with: each agent with new slots, and their stream images when they fit. */
export interface PushHandOff {
  agents: Array<{ agent_id: string; images?: unknown[] }>;
}

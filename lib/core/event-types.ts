/**
 * The contract event kinds (docs/api.md "Events"): what an agent subscribes to (lib/agents) and
 * what the feed and the deliveries carry (lib/events). Both read them from here, so neither
 * imports the other for them.
 */
export const EVENT_TYPES = [
  'contract.funded',
  'contract.released',
  'contract.refunded',
  'contract.verification.completed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

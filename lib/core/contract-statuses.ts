/**
 * A contract's statuses, as its answers, the list filter (lib/contracts/schemas.ts) and the contract
 * events' `data.status` (lib/events/feed/event-data.ts) name them. In the core so neither room
 * imports the other for it: the contract routes bundle this list, not the events' zod declarations.
 */
export const CONTRACT_STATUSES = [
  'CREATED',
  'FUNDED',
  'VERIFIED',
  'VERIFICATION_FAILED',
  'RELEASED',
  'REFUNDED',
] as const;

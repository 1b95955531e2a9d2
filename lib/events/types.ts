/**
 * The contract event kinds of the interface document (section 6) and the event object of API.md.
 * `agent_id` is the agent this copy is for: each party agent gets its own copy and its own id.
 */
export const EVENT_TYPES = [
  'contract.funded',
  'contract.released',
  'contract.refunded',
  'contract.verification.completed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** Kinds the service itself emits; never in a webhook's `events` (not configurable). */
export const SERVICE_EVENT_TYPES = ['service.webhook.test', 'service.webhook.disabled'] as const;

export type FeedEventType = EventType | (typeof SERVICE_EVENT_TYPES)[number];

export interface ServiceEvent {
  id: string;
  type: FeedEventType;
  created_at: string;
  agent_id: string;
  /** Contract kinds carry `contract_id`; the `service.*` kinds their own fields. */
  data: Record<string, unknown>;
}

/** A delivery's status (docs/api.md): `?status=` of the deliveries list takes these. */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Events and delivery records expire after this (TTL on `expires_at`); API.md asks for at least 30 days. */
export const EVENT_RETENTION_DAYS = 30;

export function expiresAt(createdAtIso: string): number {
  return Math.floor(Date.parse(createdAtIso) / 1000) + EVENT_RETENTION_DAYS * 24 * 3600;
}

/**
 * The event object of docs/api.md. `agent_id` is the agent this copy is for: each party agent
 * gets its own copy and its own id. Its retention is in lib/core/event-retention.ts.
 */
import type { AnyEventType } from '../../core/event-types.ts';
import { ID_PATTERN } from '../../core/ids.ts';

export { SERVICE_EVENT_TYPES } from '../../core/event-types.ts';

/** Any kind in an agent's feed: the contract kinds and the `service.*` kinds. */
export type FeedEventType = AnyEventType;

export interface ServiceEvent {
  id: string;
  type: FeedEventType;
  created_at: string;
  agent_id: string;
  /** The version of the kind's schema this event was made with (lib/events/feed/event-data.ts). */
  schema_version: number;
  /** Contract kinds carry `contract_id`; the `service.*` kinds their own fields. */
  data: Record<string, unknown>;
}

/** A delivery's status (docs/api.md): `?status=` of the deliveries list takes these. */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export { EVENT_RETENTION_DAYS, expiresAt } from '../../core/event-retention.ts';

export const isEventId = (value: string): boolean => ID_PATTERN.evt.test(value);

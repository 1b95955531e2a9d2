/**
 * The event object of docs/api.md and its retention. `agent_id` is the agent this copy is for:
 * each party agent gets its own copy and its own id.
 */
import type { EventType } from '../core/event-types.ts';

export interface ServiceEvent {
  id: string;
  type: EventType;
  created_at: string;
  agent_id: string;
  data: { contract_id: string } & Record<string, unknown>;
}

/** Events and delivery records expire after this (TTL on `expires_at`); the contract asks for at least 30 days. */
export const EVENT_RETENTION_DAYS = 30;

export function expiresAt(createdAtIso: string): number {
  return Math.floor(Date.parse(createdAtIso) / 1000) + EVENT_RETENTION_DAYS * 24 * 3600;
}

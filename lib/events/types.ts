/**
 * The event object of docs/api.md. `agent_id` is the agent this copy is for: each party agent
 * gets its own copy and its own id. Its retention is in lib/core/event-retention.ts.
 */
import type { EventType } from '../core/event-types.ts';

export interface ServiceEvent {
  id: string;
  type: EventType;
  created_at: string;
  agent_id: string;
  data: { contract_id: string } & Record<string, unknown>;
}

export { EVENT_RETENTION_DAYS, expiresAt } from '../core/event-retention.ts';

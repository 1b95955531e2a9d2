/**
 * The contract event kinds of the interface document (section 6) and the event object of API.md.
 * `agent_id` is the agent this copy is for: each party agent gets its own copy and its own id.
 */
import { CONTRACT_EVENT_TYPES, type ContractEventType } from '../event-types/kinds.ts';

/** The four contract kinds: the list lives in lib/event-types/kinds.ts, below lib/agents and lib/events. */
export const EVENT_TYPES = CONTRACT_EVENT_TYPES;
export type EventType = ContractEventType;

export interface ServiceEvent {
  id: string;
  type: EventType;
  created_at: string;
  agent_id: string;
  data: { contract_id: string } & Record<string, unknown>;
}

export { EVENT_RETENTION_DAYS, expiresAt } from '../event-types/retention.ts';

import { newId } from '../ids.ts';
import { ENTITY, keys } from '../store/keys.ts';
import { expiresAt, type EventType, type ServiceEvent } from './types.ts';

/**
 * The outbox: one event row per party agent, to be written in the same transaction as the state
 * change that caused it. The table's stream then carries each row to the relay, so an event that
 * is committed cannot be lost by a process dying before anything is sent.
 */
export interface OutboxRow {
  event: ServiceEvent;
  item: Record<string, unknown>;
}

export function outboxRows(agentIds: readonly string[], type: EventType, data: ServiceEvent['data'], createdAt: string): OutboxRow[] {
  return [...new Set(agentIds)].map((agentId) => {
    const event: ServiceEvent = { id: newId('evt'), type, created_at: createdAt, agent_id: agentId, data };
    return { event, item: { ...keys.event(agentId, event.id), entity: ENTITY.event, ...event, expires_at: expiresAt(createdAt) } };
  });
}

/** The event object of API.md from a stored row (or a stream image of one). */
export function eventFromItem(item: Record<string, unknown>): ServiceEvent {
  return {
    id: item['id'] as string,
    type: item['type'] as EventType,
    created_at: item['created_at'] as string,
    agent_id: item['agent_id'] as string,
    data: item['data'] as ServiceEvent['data'],
  };
}

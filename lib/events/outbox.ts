import { newId } from '../ids.ts';
import { ENTITY, keys } from '../store/keys.ts';
import { acceptsDelivery, readAgent } from './agents.ts';
import { expiresAt, type EventType, type ServiceEvent } from './types.ts';

/**
 * The outbox: one event row per party agent, to be written in the same transaction as the state
 * change that caused it. The table's stream then carries each row to the relay, so an event that
 * is committed cannot be lost by a process dying before anything is sent.
 *
 * Each row also records `deliver`: whether the agent's webhook was ENABLED and subscribed to the
 * kind when the event happened. An event of a PENDING_VERIFICATION webhook is never delivered,
 * even if the relay only gets to it after the webhook was verified; the stream filter passes
 * only rows with `deliver = true`, so the relay is not even invoked for the others.
 */
export interface OutboxRow {
  event: ServiceEvent;
  item: Record<string, unknown>;
}

export async function outboxRows(agentIds: readonly string[], type: EventType, data: ServiceEvent['data'], createdAt: string): Promise<OutboxRow[]> {
  const parties = [...new Set(agentIds)];
  const agents = await Promise.all(parties.map(readAgent));
  return parties.map((agentId, i) => {
    const event: ServiceEvent = { id: newId('evt'), type, created_at: createdAt, agent_id: agentId, data };
    const deliver = acceptsDelivery(agents[i], type);
    return { event, item: { ...keys.event(agentId, event.id), entity: ENTITY.event, ...event, deliver, expires_at: expiresAt(createdAt) } };
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

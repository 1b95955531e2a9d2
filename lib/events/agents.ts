import { getAgent } from '../agents/store.ts';
import type { AgentRecord } from '../agents/model.ts';
import type { Caller } from '../http/caller.ts';
import { notFound } from '../http/errors.ts';

/**
 * What events and deliveries need from the agent item (owned by lib/agents): ownership, and
 * whether a kind may be delivered right now. Reads are strongly consistent, so the relay and the
 * delivery worker see a webhook disabled a moment ago.
 */
export const readAgent = getAgent;

/** The caller's agent, or 404 for a missing one and for another account's (no existence leaks). */
export async function ownedAgent(caller: Caller, agentId: string): Promise<AgentRecord> {
  const agent = await getAgent(agentId);
  if (!agent || agent.owner_id !== caller.userId) throw notFound('Agent');
  return agent;
}

/** Interface document, section 6: delivery only while ENABLED, and only for subscribed kinds. */
export function acceptsDelivery(agent: AgentRecord | undefined, type: string): agent is AgentRecord & { webhook_url: string } {
  return agent?.webhook_status === 'ENABLED' && typeof agent.webhook_url === 'string' && (agent.events as string[]).includes(type);
}

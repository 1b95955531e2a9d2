/**
 * Which of a workspace's agents hear of its installed templates' versions (GET/PUT
 * /installed/agents). Installing is consent to hear of the template, as publishing is consent to
 * contracts on it; which agents hear is the workspace's choice, and none do until it chooses, so
 * no agent's feed gains a kind its owner never asked for.
 */
import { ownAgent } from '../../agents/agents.ts';
import type { Caller } from '../../core/caller.ts';
import { nowIso } from '../../core/time.ts';
import type { CommitAlong } from '../../store/transact.ts';
import type { EventAgents } from './answer.ts';
import type { EventAgentsInput } from './schemas.ts';
import { putEventAgents, readEventAgentsItem } from './store.ts';

export type { EventAgents };

export async function readEventAgents(workspaceId: string): Promise<EventAgents> {
  const Item = await readEventAgentsItem(workspaceId);
  return {
    agent_ids: (Item?.['agent_ids'] as string[] | undefined) ?? [],
    updated_at: (Item?.['updated_at'] as string | undefined) ?? null,
  };
}

export const getEventAgents = (caller: Caller): Promise<EventAgents> => readEventAgents(caller.workspaceId);

/** Each agent must be the caller's (404 otherwise, as for any agent route). The whole list is replaced. */
export async function setEventAgents(
  caller: Caller,
  input: EventAgentsInput,
  along?: CommitAlong<EventAgents>,
): Promise<EventAgents> {
  await Promise.all(input.agent_ids.map((id) => ownAgent(caller, id)));
  const chosen: EventAgents = { agent_ids: input.agent_ids, updated_at: nowIso() };
  await putEventAgents(caller.workspaceId, chosen, along?.(chosen));
  return chosen;
}

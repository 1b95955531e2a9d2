/** Agents: create, list and read, always scoped to the caller (docs/api.md, "Agents, webhooks and events"). */
import type { Caller } from '../core/caller.ts';
import { AppError, notFound, validationError } from '../core/errors.ts';
import { expiresAt } from '../core/event-retention.ts';
import { newId } from '../core/ids.ts';
import { MAX_AGENTS_PER_ACCOUNT } from '../core/settings.ts';
import { nowIso } from '../core/time.ts';
import type { CommitAlong } from '../store/transact.ts';
import { type AgentRecord, type AgentView, isAgentId, toAgentView } from './model.ts';
import { deleteOwnedAgent, getAgent, insertAgentWithinCap, listAgentsOf } from './store.ts';

/** `along`: items committed with the agent (the request's Idempotency-Key answer), so a retry after a late commit finds it. */
export async function createAgent(
  caller: Caller,
  input: { name: string },
  along?: CommitAlong<AgentView>,
): Promise<AgentView> {
  const now = nowIso();
  const agent: AgentRecord = {
    id: newId('agt'),
    owner_id: caller.userId,
    name: input.name,
    webhook_url: null,
    events: [],
    webhook_status: 'DISABLED',
    config_version: 0,
    feed_seq: 0,
    created_at: now,
    updated_at: now,
  };
  const view = toAgentView(agent);
  if (!(await insertAgentWithinCap(agent, MAX_AGENTS_PER_ACCOUNT, along?.(view)))) {
    throw new AppError(
      'limit_exceeded',
      `An account may have at most ${MAX_AGENTS_PER_ACCOUNT} agents; this one has reached that limit.`,
    );
  }
  return view;
}

export async function listAgents(
  caller: Caller,
  query: { limit: number; cursor?: string | undefined },
): Promise<{ data: AgentView[]; next_cursor: string | null }> {
  if (query.cursor !== undefined && !isAgentId(query.cursor)) {
    throw validationError(
      [{ path: 'cursor', message: 'Use the next_cursor of a previous page.' }],
      'The query string is not valid.',
    );
  }
  const page = await listAgentsOf(caller.userId, query.limit, query.cursor);
  return { data: page.agents.map(toAgentView), next_cursor: page.nextAfterId };
}

/** The caller's agent record; a malformed id, a missing agent and someone else's agent are the same 404. */
export async function ownAgent(caller: Caller, agentId: string): Promise<AgentRecord> {
  const agent = await getAgent(agentId); // undefined for an id that cannot be an agent's
  if (!agent || agent.owner_id !== caller.userId) throw notFound('Agent');
  return agent;
}

export const getAgentView = async (caller: Caller, agentId: string): Promise<AgentView> =>
  toAgentView(await ownAgent(caller, agentId));

/** Gone for good: 404 afterwards on every route; its feed items expire with their TTL (docs/api.md). */
export async function deleteAgent(caller: Caller, agentId: string, along?: CommitAlong<void>): Promise<void> {
  const now = nowIso();
  if (!(await deleteOwnedAgent(agentId, caller.userId, now, expiresAt(now), along?.()))) throw notFound('Agent');
}

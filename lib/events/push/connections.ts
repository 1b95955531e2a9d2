/**
 * The push channel's connections (docs/events.md, "Push"): who may open one (the agent's owner,
 * exactly as for the feed: anyone else's agent is 404), where it starts (`after`, checked as the
 * feed checks a cursor), at most PUSH.connectionsPerAgent at once (429 beyond), and the sync a
 * client sends after connecting and every few minutes.
 */
import { ownAgent } from '../../agents/agents.ts';
import type { Caller } from '../../core/caller.ts';
import { rateLimited } from '../../core/errors.ts';
import { PUSH } from '../../core/settings.ts';
import { shuffled } from '../../core/shuffled.ts';
import { checkFeedCursor } from '../feed/position.ts';
import type { PostFrame } from './channel.ts';
import { sendBacklog } from './send.ts';
import { claimSlot, readConnection, readSlot, releaseSlot } from './store.ts';

export interface OpenRequest {
  agentId: string;
  /** Resume after this event id (what the client saw last); absent: from the oldest retained event. */
  after?: string | undefined;
  connectionId: string;
}

export async function openConnection(caller: Caller, request: OpenRequest, nowMs = Date.now()): Promise<void> {
  const agent = await ownAgent(caller, request.agentId);
  checkFeedCursor(agent, request.after, 'after');
  for (const slot of shuffled(PUSH.connectionsPerAgent)) {
    if (await claimSlot(agent.id, slot, request.connectionId, request.after, nowMs)) return;
  }
  throw rateLimited(
    `An agent may have at most ${PUSH.connectionsPerAgent} push connections open at once; close one, or try again later.`,
    60,
  );
}

/** $disconnect: frees the connection's slot. A connection never opened (or already cleaned up) is nothing to do. */
export async function closeConnection(connectionId: string): Promise<void> {
  const held = await readConnection(connectionId);
  if (held) await releaseSlot(held.agent_id, held.slot, connectionId);
}

/** A client's sync: everything after its cursor. False when the connection holds no slot (it was cleaned up: reconnect). */
export async function syncConnection(connectionId: string, post: PostFrame, nowMs = Date.now()): Promise<boolean> {
  const held = await readConnection(connectionId);
  const slot = held && (await readSlot(held.agent_id, held.slot));
  if (!slot || slot.connection_id !== connectionId) return false;
  await sendBacklog(slot, post, nowMs);
  return true;
}

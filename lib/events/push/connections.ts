/**
 * The push channel's connections (docs/events.md, "Push"): who may open one (the agent's owner,
 * exactly as for the feed: anyone else's agent is 404), where it starts (`after`, checked as the
 * feed checks a cursor), at most PUSH.connectionsPerAgent at once (429 beyond), and the sync a
 * client sends after connecting and every few minutes.
 */

import { findCallerByKeyHash } from '../../accounts/api-keys.ts';
import { ownAgent } from '../../agents/agents.ts';
import { listAgentsOf } from '../../agents/store.ts';
import type { Caller } from '../../core/caller.ts';
import { AppError, rateLimited } from '../../core/errors.ts';
import { PUSH } from '../../core/settings.ts';
import { shuffled } from '../../core/shuffled.ts';
import { checkFeedCursor } from '../feed/position.ts';
import type { CloseConnection, PostFrame } from './channel.ts';
import { takeKeyMessage } from './message-limit.ts';
import { sendBacklog } from './send.ts';
import { claimSlot, type HeldConnection, listSlots, readConnection, readSlot, releaseSlot } from './store.ts';

export interface OpenRequest {
  agentId: string;
  /** The hash of the key that opens it: each sync checks that the key still stands. */
  keyHash: string;
  /** Resume after this event id (what the client saw last); absent: from the oldest retained event. */
  after?: string | undefined;
  connectionId: string;
}

export async function openConnection(caller: Caller, request: OpenRequest, nowMs = Date.now()): Promise<void> {
  const agent = await ownAgent(caller, request.agentId);
  checkFeedCursor(agent, request.after, 'after');
  for (const slot of shuffled(PUSH.connectionsPerAgent)) {
    const connection = { connectionId: request.connectionId, keyHash: request.keyHash, cursor: request.after };
    const claimed = await claimSlot(agent.id, slot, connection, nowMs);
    // The claim commits only while the key stands: a revocation between the handshake's key check and
    // here either sees this slot (closeConnectionsOfKey runs after the key is marked) or refuses it.
    if (claimed === 'key_revoked') throw new AppError('unauthorized', 'A valid API key is required.');
    if (claimed) return;
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

/**
 * Counts a message against the key that opened its connection (PUSH.messageLimits.perKey), whatever
 * the message is, before it is read: a malformed one costs an invocation too. Returns the
 * connection's lookup (undefined: it holds no slot); throws `rate_limited` when the key's
 * connections together are over their rate.
 */
export async function takeConnectionKeyMessage(
  connectionId: string,
  nowMs = Date.now(),
): Promise<HeldConnection | undefined> {
  const held = await readConnection(connectionId);
  if (held?.key_hash) await takeKeyMessage(held.key_hash, () => nowMs);
  return held;
}

/**
 * A client's sync: everything after its cursor. First the access check of the feed, again: the key
 * must still stand and its owner still own the agent (a revoked key, a deleted agent: an error frame,
 * and the service closes the connection), so a connection outlives its access by at most one sync
 * interval. False when the connection holds no slot (it was cleaned up: reconnect). `held`: the
 * lookup takeConnectionKeyMessage read, the message already counted against the key.
 */
export async function syncConnection(
  connectionId: string,
  channel: { post: PostFrame; close: CloseConnection },
  nowMs = Date.now(),
  held: HeldConnection | undefined = undefined,
): Promise<boolean> {
  const lookup = held ?? (await readConnection(connectionId));
  const slot = lookup && (await readSlot(lookup.agent_id, lookup.slot));
  if (!slot || slot.connection_id !== connectionId) return false;
  // A lookup from before the key was kept on it: counted here, by the slot's key.
  if (!lookup.key_hash) await takeKeyMessage(slot.key_hash, () => nowMs);
  const caller = await findCallerByKeyHash(slot.key_hash);
  try {
    if (!caller) throw new AppError('unauthorized', 'The API key of this connection is no longer valid.');
    await ownAgent(caller, slot.agent_id);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    await channel.post(connectionId, JSON.stringify({ error: { code: err.code, message: err.message } }));
    await releaseSlot(slot.agent_id, slot.slot, connectionId);
    await channel.close(connectionId);
    return true;
  }
  await sendBacklog(slot, channel.post, nowMs);
  return true;
}

/**
 * Ends the push connections a key opened, once the key is revoked (revoke-key): each slot it holds
 * is freed first, so the push worker sends it nothing more and its sync finds no slot, then the
 * connection is closed from the service's side. The key's connections are on its owner's agents (a
 * connection is opened by the agent's owner only); a deleted agent's end at their next sync. How
 * many were ended, and how many of those the close did not reach (freed all the same: they get no frame).
 */
export async function closeConnectionsOfKey(
  ownerId: string,
  keyHash: string,
  close: CloseConnection,
): Promise<{ closed: number; unclosed: number }> {
  const ended = { closed: 0, unclosed: 0 };
  let after: string | undefined;
  do {
    const page = await listAgentsOf(ownerId, 100, after);
    for (const agent of page.agents) {
      for (const slot of await listSlots(agent.id)) {
        if (slot.key_hash !== keyHash) continue;
        await releaseSlot(slot.agent_id, slot.slot, slot.connection_id);
        const reached = await close(slot.connection_id).then(
          () => true,
          () => false,
        );
        ended[reached ? 'closed' : 'unclosed'] += 1;
      }
    }
    after = page.nextAfterId ?? undefined;
  } while (after);
  return ended;
}

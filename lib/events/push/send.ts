/**
 * Sending an agent's feed to its connections: the same reader as polling and SSE (feed/reader.ts),
 * from each connection's stored cursor, so a pushed event is exactly what the feed holds, in its
 * order, and nothing after a cursor is ever skipped. Connections at the same cursor (the usual
 * case: one event fanned out to every connection of the agent) share one read and one cursor write.
 *
 * Two sends to one connection may overlap (the push worker and a client's sync); each posts a run
 * of consecutive events from its cursor and moves the cursor only from where it read it, so the
 * client sees no gap and at most a repeat, which it drops (an event id it has passed; docs/events.md, "Push").
 */
import type { AgentRecord } from '../../agents/model.ts';
import { PUSH } from '../../core/settings.ts';
import { readFeed, readFilled } from '../feed/reader.ts';
import type { PostFrame } from './channel.ts';
import { advanceCursors, listSlots, type PushSlot, type PushTarget, releaseSlot } from './store.ts';

/**
 * Sends every connection of the agent what it has not been sent yet. Throws the first failure after
 * trying all. `target`: its slots and agent item, when the caller has just read them (push-batch.ts);
 * `filled`: the agent's slot items the stream brought with them, which spare a connection the read
 * of the feed when they continue its cursor (feed/reader.ts, readFilled).
 */
export async function pushToAgent(
  agentId: string,
  post: PostFrame,
  nowMs = Date.now(),
  target?: PushTarget,
  filled: readonly Record<string, unknown>[] = [],
): Promise<void> {
  const slots = target?.slots ?? (await listSlots(agentId));
  const open = slots.filter((slot) => slot.held_until > nowMs);
  const byCursor = new Map<string | undefined, PushSlot[]>();
  for (const slot of open) byCursor.set(slot.cursor, [...(byCursor.get(slot.cursor) ?? []), slot]);
  const results = await Promise.allSettled(
    [...byCursor].map(([cursor, slots]) => sendFrom(cursor, slots, post, nowMs, target?.agent, filled)),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Sends one connection what it has not been sent yet (a client's sync). */
export const sendBacklog = (slot: PushSlot, post: PostFrame, nowMs = Date.now()): Promise<void> =>
  sendFrom(slot.cursor, [slot], post, nowMs);

/**
 * `agent`: the agent item read with the slots, which serves as the first read's counter
 * (feed/reader.ts); with it, `filled` may serve as the first read itself.
 */
async function sendFrom(
  start: string | undefined,
  slots: PushSlot[],
  post: PostFrame,
  nowMs: number,
  agent?: AgentRecord,
  filled: readonly Record<string, unknown>[] = [],
): Promise<void> {
  const agentId = slots[0]!.agent_id;
  let cursor = start;
  let live = slots;
  let known = agent;
  while (live.length > 0) {
    const read =
      (known && readFilled(known, cursor, filled)) ?? (await readFeed(agentId, cursor, PUSH.pageSize, nowMs, known));
    known = undefined;
    if (read.cursor === undefined || read.cursor === cursor) return; // nothing after the cursor yet
    const frames = read.events.map((event) => JSON.stringify(event));
    const posted = await Promise.allSettled(live.map((slot) => postRun(slot, frames, post)));
    const failed = posted.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    const sent = live.filter((_, i) => {
      const result = posted[i]!;
      return result.status === 'fulfilled' && result.value;
    });
    // A connection whose post failed keeps its cursor: what it missed is sent again, never skipped.
    live = await advanceCursors(sent, cursor, read.cursor);
    if (failed) throw failed.reason;
    if (read.drained) return;
    cursor = read.cursor;
  }
}

/** Posts the frames in order. False: the connection is gone (410), and its slot is freed. */
async function postRun(slot: PushSlot, frames: string[], post: PostFrame): Promise<boolean> {
  for (const frame of frames) {
    if ((await post(slot.connection_id, frame)) === 'gone') {
      // 410 from @connections: the client went away without a $disconnect reaching us (or it is on its way).
      await releaseSlot(slot.agent_id, slot.slot, slot.connection_id);
      return false;
    }
  }
  return true;
}

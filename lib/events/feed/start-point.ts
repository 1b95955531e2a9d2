/**
 * Where a stream that gives `since` starts (docs/events.md, "Where a stream starts"): each start
 * point is mapped once, at connect, to a feed cursor, and from there the reader goes slot by slot
 * as for any cursor, so nothing after the start is ever skipped.
 *
 * - `now`: after every slot handed out so far (the agent's ticket counter). An event whose writer
 *   took its ticket before the connect counts as earlier, even if it commits a moment later.
 * - an ISO time T: after the last slot before the first one whose item was created at or after T,
 *   found by bisecting positions (one one-item Query per probe, ~log2 of the feed's span). Writers'
 *   clocks may differ by a few seconds, so an event created within that margin of T may fall on
 *   either side; every event past the start is delivered whatever its `created_at`.
 * - an event id: after that event, exactly as `Last-Event-ID` (which takes precedence over `since`);
 *   an id that is not a place in this agent's feed is refused (checkFeedCursor).
 */
import type { AgentRecord } from '../../agents/model.ts';
import { afterPosition, checkFeedCursor, positionOf } from './position.ts';
import { edgeSlot, firstSlotFrom } from './store.ts';

/** `from`: where the client gave the event id (Last-Event-ID, since or after), for the error's path. */
export type StartPoint =
  | { kind: 'now' }
  | { kind: 'time'; at: Date }
  | { kind: 'after'; eventId: string; from: string };

export async function startCursor(agent: AgentRecord, start: StartPoint): Promise<string | undefined> {
  switch (start.kind) {
    case 'after':
      checkFeedCursor(agent, start.eventId, start.from);
      return start.eventId;
    case 'now': {
      const head = agent.feed_seq ?? (await edgeItem(agent.id, 'newest'))?.position;
      return head === undefined ? undefined : afterPosition(head);
    }
    case 'time':
      return cursorBefore(agent, start.at.getTime());
  }
}

interface SlotItem {
  position: number;
  createdMs: number;
}

async function cursorBefore(agent: AgentRecord, atMs: number): Promise<string | undefined> {
  const oldest = await edgeItem(agent.id, 'oldest');
  if (!oldest || oldest.createdMs >= atMs) return undefined; // everything retained is at or after T
  // Invariant: the first item at or after `low` was created before T; at or after `high` it was not (or there is none).
  let low = oldest.position;
  let high = Math.max(agent.feed_seq ?? 0, (await edgeItem(agent.id, 'newest'))!.position) + 1;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    const item = await firstItemFrom(agent.id, middle);
    if (item && item.createdMs < atMs) low = item.position;
    else high = middle;
  }
  return afterPosition(low);
}

const toSlot = (item: Record<string, unknown> | undefined): SlotItem | undefined =>
  item
    ? { position: positionOf(item['id'] as string), createdMs: Date.parse(item['created_at'] as string) }
    : undefined;

/** The oldest or newest item (event or gap marker) of the feed. */
const edgeItem = async (agentId: string, edge: 'oldest' | 'newest') => toSlot(await edgeSlot(agentId, edge));

/** The first item at `position` or after it. */
const firstItemFrom = async (agentId: string, position: number) => toSlot(await firstSlotFrom(agentId, position));

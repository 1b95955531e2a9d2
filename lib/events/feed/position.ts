import { createHash } from 'node:crypto';
import type { AgentRecord } from '../../agents/model.ts';
import { validationError } from '../../core/errors.ts';
import { idAt, sortablePrefix, sortValueOf } from '../../core/ids.ts';
import * as keys from '../../store/key-builders.ts';

/**
 * Feed positions (docs/events.md, "The feed position"). Every event of an agent's feed sits in
 * a slot numbered by the agent's ticket counter (`feed_seq` on the agent item, one atomic ADD
 * per ticket: no writer ever waits for or retries against another). A slot is filled exactly
 * once, with a conditional put: by its writer's event, or, when the writer gave up or died, by a
 * gap marker. Readers walk the slots in order and never pass an empty one, so no event can
 * appear behind a cursor already handed out; an empty slot older than GAP_GRACE_MS is filled
 * with a gap marker by the reader that finds it, and a writer that comes back later finds its
 * slot taken and starts again with a new ticket.
 *
 * An event's id is its slot: the position in its sort characters, the rest derived from the
 * agent and the position, so a writer and a gap-filling reader name the same item.
 */

/** How old an empty slot must be before a reader fills it: far longer than any live commit takes. */
export const GAP_GRACE_MS = 30_000;

export const positionOf = (eventId: string): number => sortValueOf(eventId);

export function eventIdAt(agentId: string, position: number): string {
  return idAt('evt', position, createHash('sha256').update(`${agentId}:${position}`).digest());
}

/**
 * A cursor after every slot at `position` or below: the highest id that sorts at `position` (no
 * event id is greater). A stream's start point (start-point.ts) is one of these.
 */
export const afterPosition = (position: number): string =>
  `${sortablePrefix('evt', Math.max(0, position))}${'Z'.repeat(16)}`;

/**
 * Refuses a cursor that is not a place in this agent's feed (docs/events.md, "Cursors"): past a
 * numbered agent's counter, or at a numbered position but neither that slot's id nor a position
 * cursor (afterPosition). Ids at or below `feed_base` are from before positions and any id sorts
 * there. The reader relies on this: a forged id that sorts just below a real slot would hand it
 * that slot again, behind the position it expects.
 */
export function checkFeedCursor(agent: AgentRecord, cursor: string | undefined, path: string): void {
  const head = agent.feed_seq;
  if (cursor === undefined || head === undefined) return;
  const position = positionOf(cursor);
  if (agent.feed_base !== undefined && position <= agent.feed_base) return;
  const problem =
    position > head
      ? 'Past the newest event of this agent: pass a next_cursor or an event id this agent was given.'
      : cursor !== eventIdAt(agent.id, position) && cursor !== afterPosition(position)
        ? "Not an event of this agent: pass a next_cursor or an event id from this agent's feed."
        : undefined;
  if (problem) throw validationError([{ path, message: problem }], `The ${path} cursor is not valid for this agent.`);
}

/** The highest sort key a slot at `position` or below can have in the agent's partition. */
export const lastKeyAt = (agentId: string, position: number): string =>
  keys.event(agentId, `${sortablePrefix('evt', position)}\uffff`).SK;

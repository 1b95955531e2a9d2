/**
 * Reading an agent's feed in slot order (position.ts); its DynamoDB calls are in store.ts. A page reads the agent's counter H,
 * then the slots after the cursor up to H, and stops before the first empty one: every slot it
 * passes is filled for good, so no later commit can land behind the cursor it returns. An empty
 * slot older than GAP_GRACE_MS (judged by the next event's created_at, or by the time of the
 * newest ticket) is filled with a gap marker and passed.
 */
import type { AgentRecord } from '../../agents/model.ts';
import { ENTITY } from '../../store/keys.ts';
import { readAgent } from './agent-gate.ts';
import type { ServiceEvent } from './event.ts';
import { eventFromItem } from './outbox.ts';
import { checkFeedCursor, GAP_GRACE_MS, positionOf } from './position.ts';
import { fillGap, getFeedItem, querySlots } from './store.ts';

/** Gap markers one read may write: a writer that died leaves one per party agent. */
export const MAX_FILLS_PER_READ = 20;
/**
 * The store calls one read may make, whatever the cursor and the table hold: a round is a counter
 * read and a Query, and a read goes round again only after filling at least one slot (at most
 * MAX_FILLS_PER_READ of them) or once when the first numbered event commits meanwhile.
 */
export const MAX_STORE_CALLS_PER_READ = 2 * (MAX_FILLS_PER_READ + 2) + 1 + MAX_FILLS_PER_READ;

export interface FeedRead {
  events: ServiceEvent[];
  /** The last slot passed (an event's id or a gap's): where the next read starts. */
  cursor: string | undefined;
  /**
   * True when the read stopped for want of slots (every ticket handed out was passed, or the next
   * slot is still being written), not for its limit: a read from `cursor` now would find nothing.
   */
  drained?: boolean;
}

/**
 * `agent`, when the caller has just read it (consistently, as the route's ownership check does),
 * serves as the counter read: the slots are queried after it, which is all the guarantee needs.
 */
export function readFeed(
  agentId: string,
  after: string | undefined,
  limit: number,
  nowMs = Date.now(),
  agent?: AgentRecord,
): Promise<FeedRead> {
  return readFrom(agentId, after, limit, nowMs, 0, agent);
}

async function readFrom(
  agentId: string,
  after: string | undefined,
  limit: number,
  nowMs: number,
  fills: number,
  known?: AgentRecord,
): Promise<FeedRead> {
  const agent = known ?? (await readAgent(agentId));
  const head = agent?.feed_seq;
  if (head === undefined) {
    // No counter yet: only events from before positions existed, all long committed. If the
    // first numbered event commits while we read, read again with the counter.
    const items = await querySlots(agentId, after, undefined, limit);
    if ((await readAgent(agentId))?.feed_seq !== undefined) return readFrom(agentId, after, limit, nowMs, fills);
    return {
      events: items.map(eventFromItem),
      cursor: (items.at(-1)?.['id'] as string | undefined) ?? after,
      drained: items.length < limit,
    };
  }
  if (after !== undefined && positionOf(after) >= head) return { events: [], cursor: after, drained: true };

  const base = agent!.feed_base ?? 0;
  let expected = Math.max(after === undefined ? base : positionOf(after), base) + 1;
  const events: ServiceEvent[] = [];
  let cursor = after;
  // Empty slots from..to stop the read (nothing more is readable now), or are filled once old enough.
  const stopAt = (from: number, to: number, sinceMs: number) =>
    passGap(agentId, after, limit, { events, cursor, drained: true }, from, to, sinceMs, nowMs, fills);
  const slots = await querySlots(agentId, after, head, limit);
  for (const item of slots) {
    const position = positionOf(item['id'] as string);
    if (position > base) {
      // Below the expected slot: only a cursor checkFeedCursor would refuse gets here. End the page, never read it again.
      if (position < expected) return { events, cursor };
      if (position !== expected) {
        // Slot `expected` is empty. The writer of `position` took its ticket after that slot's.
        const since =
          item['entity'] === ENTITY.event
            ? Date.parse(item['created_at'] as string)
            : Number(agent!.feed_ticket_at ?? nowMs);
        return stopAt(expected, position - 1, since);
      }
      expected++;
    }
    if (item['entity'] === ENTITY.event) events.push(eventFromItem(item));
    cursor = item['id'] as string;
  }
  if (slots.length < limit && expected <= head) {
    // Every slot up to H was read and the last ones are empty (the newest tickets' events are not in yet).
    return stopAt(expected, head, Number(agent!.feed_ticket_at ?? nowMs));
  }
  return { events, cursor, drained: slots.length < limit };
}

/**
 * What a read from `after` begins with, from slots the caller already holds and knows are filled
 * (the push worker's stream records: an INSERT of an event or a gap marker fills its slot for good),
 * without the Query: the run of them from `after`'s next slot on, up to the first slot it lacks.
 * `agent` is the agent item read after those slots were filled (its counter says whether any slot
 * is left beyond the run: `drained`). Undefined when they do not begin at `after`'s next slot, or
 * `after` is not past `feed_base`: read the feed then. A run that ends before the counter leaves the
 * rest to a read from its end, so a slot the caller lacks is never passed.
 */
export function readFilled(
  agent: AgentRecord | undefined,
  after: string | undefined,
  filled: readonly Record<string, unknown>[],
): FeedRead | undefined {
  const head = agent?.feed_seq;
  if (head === undefined || after === undefined || positionOf(after) < (agent!.feed_base ?? 0)) return undefined;
  const byPosition = new Map(filled.map((item) => [positionOf(item['id'] as string), item]));
  let last = positionOf(after);
  const start = last;
  const events: ServiceEvent[] = [];
  let cursor = after;
  for (let item = byPosition.get(last + 1); item; item = byPosition.get(++last + 1)) {
    if (item['entity'] === ENTITY.event) events.push(eventFromItem(item));
    cursor = item['id'] as string;
  }
  // Slots beyond the cursor but none at its next one: a slot between is not among them.
  if (last === start && [...byPosition.keys()].some((position) => position > start)) return undefined;
  return { events, cursor, drained: last >= head };
}

/** Stops at an empty slot, or fills the empty slots from..to once they are old enough and reads on. */
async function passGap(
  agentId: string,
  after: string | undefined,
  limit: number,
  sofar: FeedRead,
  from: number,
  to: number,
  sinceMs: number,
  nowMs: number,
  fills: number,
): Promise<FeedRead> {
  // `from > to`: nothing to fill, so no progress to read on from.
  if (from > to || nowMs - sinceMs < GAP_GRACE_MS || fills >= MAX_FILLS_PER_READ) return sofar;
  const last = Math.min(to, from + MAX_FILLS_PER_READ - fills - 1);
  for (let position = from; position <= last; position++) await fillGap(agentId, position, nowMs);
  return readFrom(agentId, after, limit, nowMs, fills + (last - from + 1));
}

export interface EventPage {
  data: ServiceEvent[];
  /** Where the next page starts (pass it as `after`); with nothing new, the `after` given. */
  next_cursor: string | null;
}

export async function listEvents(agent: AgentRecord, after: string | undefined, limit: number): Promise<EventPage> {
  checkFeedCursor(agent, after, 'after');
  const read = await readFeed(agent.id, after, limit, Date.now(), agent);
  return { data: read.events, next_cursor: read.cursor ?? null };
}

export async function readEvent(agentId: string, eventId: string): Promise<ServiceEvent | undefined> {
  const item = await getFeedItem(agentId, eventId);
  return item && item['entity'] === ENTITY.event ? eventFromItem(item) : undefined;
}

/**
 * The server-sent events loop of one agent's feed: frames for every event after the cursor, then
 * a look at the table `minPollMs` after an event, the wait doubling up to `pollMs` while the feed
 * is quiet (events come in bursts: a contract's transitions, a retry series), a comment heartbeat
 * when nothing was written for `heartbeatMs`, and an orderly end before the function's time runs out (the client reconnects
 * with Last-Event-ID and loses nothing).
 */
import { validationError } from '../../core/errors.ts';
import { isEventId, type ServiceEvent } from './event.ts';
import { readFeed } from './reader.ts';
import type { StartPoint } from './start-point.ts';

export interface SseSink {
  write(chunk: string): void;
  /** True once the client went away. */
  closed(): boolean;
  /**
   * Resolves once the frames written so far have left for the client. A client that does not read
   * (or reads slower than the feed is drained) would otherwise have the function read on and
   * buffer its whole backlog in memory.
   */
  drained?(): Promise<void>;
}

export interface SseOptions {
  /** Time left before the runtime stops us. */
  remainingMs: () => number;
  /** The longest wait between two looks at the table, once the feed is quiet. */
  pollMs?: number;
  /** The shortest: right after an event, when the next one of a burst is likely near. */
  minPollMs?: number;
  /** docs/api.md: a heartbeat at least every 15 s; 10 s leaves room for a slow poll. */
  heartbeatMs?: number;
  /** Stop this long before the deadline. */
  reserveMs?: number;
  pageSize?: number;
  /**
   * Send the start cursor as an `id:` line before any event: a start given by `since` then
   * survives a reconnect (EventSource sends it back as Last-Event-ID) instead of being mapped again.
   */
  announceStart?: boolean;
  /**
   * Asked every `accessCheckMs` while the stream runs: false (the key or portal link revoked, the
   * agent deleted) ends the stream; the client's reconnect then meets the authorizer's 401.
   */
  accessStands?: () => Promise<boolean>;
  accessCheckMs?: number;
}

export function sseFrame(event: ServiceEvent): string {
  // JSON.stringify never emits a raw newline, so the data fits one `data:` line.
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * Where a (re)connecting client starts: `Last-Event-ID` (what EventSource sends) wins over
 * `since`, which wins over `after` (the two query forms together are refused as ambiguous).
 * Undefined: from the oldest retained event.
 */
export function streamStart(
  lastEventIdHeader: string | undefined,
  query: { after?: string | undefined; since?: string | undefined },
): StartPoint | undefined {
  const lastEventId = lastEventIdHeader?.trim() || undefined;
  if (lastEventId !== undefined) {
    if (!isEventId(lastEventId)) {
      throw validationError(
        [{ path: 'Last-Event-ID', message: 'Expected an event id (evt_…).' }],
        'The Last-Event-ID header is not valid.',
      );
    }
    return { kind: 'after', eventId: lastEventId, from: 'Last-Event-ID' };
  }
  if (query.since !== undefined && query.after !== undefined) {
    throw validationError(
      [{ path: 'since', message: 'Give `since` or `after`, not both.' }],
      'The query string is not valid.',
    );
  }
  if (query.since === 'now') return { kind: 'now' };
  if (query.since !== undefined)
    return isEventId(query.since)
      ? { kind: 'after', eventId: query.since, from: 'since' }
      : { kind: 'time', at: new Date(query.since) };
  return query.after === undefined ? undefined : { kind: 'after', eventId: query.after, from: 'after' };
}

/** A stream's access is read again at the heartbeat's pace: a revocation reaches a running stream within 10 s. */
export const SSE_ACCESS_CHECK_MS = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The wait before the next look at the table: short after an event, doubling while quiet (docs/cost.md, the SSE cost model). */
export function nextPollMs(
  previousMs: number,
  gotEvents: boolean,
  bounds: { minPollMs: number; pollMs: number },
): number {
  return gotEvents ? bounds.minPollMs : Math.min(bounds.pollMs, Math.max(bounds.minPollMs, previousMs * 2));
}

export async function streamEvents(
  agentId: string,
  after: string | undefined,
  sink: SseSink,
  options: SseOptions,
): Promise<void> {
  const { remainingMs, pollMs = 1000, heartbeatMs = 10_000, reserveMs = 5000, pageSize = 100 } = options;
  const { accessStands, accessCheckMs = SSE_ACCESS_CHECK_MS } = options;
  let accessCheckedAt = Date.now();
  const minPollMs = Math.min(options.minPollMs ?? 250, pollMs);
  let waitMs = pollMs;
  let cursor = after;
  let lastWrite = Date.now();
  const write = (chunk: string) => {
    sink.write(chunk);
    lastWrite = Date.now();
  };
  // Tells EventSource clients how long to wait before reconnecting, and flushes the headers.
  write(`retry: 1000\n: connected\n\n`);
  if (options.announceStart && cursor !== undefined) write(`id: ${cursor}\n\n`);
  while (!sink.closed() && remainingMs() > reserveMs) {
    if (accessStands && Date.now() - accessCheckedAt >= accessCheckMs) {
      accessCheckedAt = Date.now();
      if (!(await accessStands())) {
        write(': access ended\n\n');
        return;
      }
    }
    const read = await readFeed(agentId, cursor, pageSize);
    if (sink.closed()) break;
    for (const event of read.events) write(sseFrame(event));
    await sink.drained?.();
    const moved = read.cursor !== cursor;
    cursor = read.cursor;
    if (moved && read.events.length === pageSize) continue; // a backlog: drain it before waiting
    waitMs = nextPollMs(waitMs, read.events.length > 0, { minPollMs, pollMs });
    if (Date.now() - lastWrite >= heartbeatMs) write(': heartbeat\n\n');
    await sleep(Math.max(0, Math.min(waitMs, heartbeatMs - (Date.now() - lastWrite))));
  }
}

/**
 * The push bench's stage trace (bench-only, not product logging): for each event, when its
 * transaction was answered, when GetRecords first returned its stream record to the relay's poller
 * and when the push worker was first invoked with a hand-off holding it; for each frame, when its @connections
 * POST was answered and when the client received it. The store calls are seen through the SDK
 * clients' middleware, the @connections posts through the watch on signed requests (both
 * lib/aws/client-hooks.ts), the stream through the relay poller's hook
 * (local/emulators/event-pipeline.ts, onRelayRead) and the hand-off through the push worker's
 * (local/emulators/push-worker.ts).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import { decorateAwsClients, watchAwsCalls } from '../lib/aws/client-hooks.ts';
import type { PushHandOff } from '../lib/events/push/slots.ts';
import { percentileOf } from './_api.ts';

interface EventTimes {
  committed?: number;
  read?: number;
  handed?: number;
  /** When each of its posts was answered. */
  posted: number[];
}

/** A frame as the client received it. */
export interface Received {
  id: string;
  createdAt: number;
  arrived: number;
}

/** A trace's data as it crosses from the push thread to the bench. */
export interface TraceSnapshot {
  events: [string, EventTimes][];
  calls: [string, number][];
  roundTrips: [string, number[]][];
}

/** An attribute value as the document client or the wire has it. */
const plain = (value: unknown): unknown =>
  value && typeof value === 'object' && 'S' in value ? (value as { S: unknown }).S : value;

export class PushTrace {
  private readonly events = new Map<string, EventTimes>();
  private enabled = false;
  /** DynamoDB calls by command while recording (the push worker's and the moves' alike), and stream pages read. */
  readonly calls = new Map<string, number>();
  /**
   * Each DynamoDB call's round trip (ms) by command while recording: from the SDK call to its answer,
   * so the SDK's own work, its retries and any wait in the caller's event loop are in it too.
   */
  readonly roundTrips = new Map<string, number[]>();

  constructor() {
    // The @connections posts are signed requests of their own (lib/aws/signed-request.ts).
    watchAwsCalls((service, operation, input) => {
      const body = (input as { body?: string }).body;
      if (!this.enabled || service !== 'execute-api' || operation !== 'PostToConnection' || !body) return undefined;
      const id = (JSON.parse(body) as { id: string }).id;
      return () => this.of(id).posted.push(Date.now());
    });
    decorateAwsClients((client, service) => {
      if (service !== 'dynamodb') return;
      (client as DynamoDBClient).middlewareStack.add(
        (next, context) => async (args) => {
          const sent = performance.now();
          let result: Awaited<ReturnType<typeof next>>;
          try {
            result = await next(args);
          } finally {
            // A refused call (a condition, a cancelled transaction) waited in the same queue: it counts too.
            this.count(context.commandName ?? 'unknown', performance.now() - sent);
          }
          if (this.enabled && context.commandName === 'TransactWriteItemsCommand') {
            const at = Date.now();
            const items = (args.input as { TransactItems?: { Put?: { Item?: Record<string, unknown> } }[] })
              .TransactItems;
            for (const item of items ?? []) {
              const row = item.Put?.Item;
              if (row && plain(row['entity']) === 'event') this.of(String(plain(row['id']))).committed ??= at;
            }
          }
          return result;
        },
        { step: 'initialize', name: 'pushTraceCommits' },
      );
    });
  }

  /** The hooks: the relay poller's pages (in the bench's process), the push worker's hand-offs (in the push thread). */
  readonly hooks = {
    read: (records: readonly StreamRecord[]) => {
      if (!this.enabled) return;
      const at = Date.now();
      this.count('GetRecords (pages with records)');
      for (const r of records) {
        const id = r.dynamodb?.NewImage?.['id']?.S;
        if (id && r.dynamodb?.NewImage?.['entity']?.S === 'event') this.of(id).read ??= at;
      }
    },
    handed: (handOff: PushHandOff) => {
      if (!this.enabled) return;
      const at = Date.now();
      // A hand-off past its byte budget carries no images: its events are not stamped here.
      for (const image of handOff.agents.flatMap((a) => a.images ?? [])) {
        const id = (image as { id?: { S?: string } }).id?.S;
        if (id) this.of(id).handed ??= at;
      }
    },
  };

  /** What this trace holds, to be merged into the parent's (the push thread's, below). */
  snapshot(): TraceSnapshot {
    return { events: [...this.events], calls: [...this.calls], roundTrips: [...this.roundTrips] };
  }

  /** Adds another thread's trace: each stage's earliest time, every post, the calls summed. */
  merge(other: TraceSnapshot): void {
    for (const [id, times] of other.events) {
      const mine = this.of(id);
      for (const stage of ['committed', 'read', 'handed'] as const) {
        const at = times[stage];
        if (at !== undefined && (mine[stage] === undefined || at < mine[stage])) mine[stage] = at;
      }
      mine.posted.push(...times.posted);
    }
    for (const [call, n] of other.calls) this.calls.set(call, (this.calls.get(call) ?? 0) + n);
    for (const [call, ms] of other.roundTrips) this.timesOf(call).push(...ms);
  }

  /** Records from now on (the moves' phase). */
  start(): void {
    this.enabled = true;
  }

  /** The decorators stay on the clients; this only stops them recording. */
  stop(): void {
    this.enabled = false;
  }

  /** Forgets the calls recorded so far (the quiet baseline's, before the phase's). */
  forgetCalls(): void {
    this.calls.clear();
    this.roundTrips.clear();
  }

  /** Each command's median round trip (ms) among the calls recorded. */
  medianRoundTrips(): Map<string, number> {
    return new Map([...this.roundTrips].map(([name, ms]) => [name, percentileOf(ms, 50)]));
  }

  private timesOf(call: string): number[] {
    let times = this.roundTrips.get(call);
    if (!times) {
      times = [];
      this.roundTrips.set(call, times);
    }
    return times;
  }

  private count(call: string, roundTripMs?: number): void {
    if (!this.enabled) return;
    this.calls.set(call, (this.calls.get(call) ?? 0) + 1);
    if (roundTripMs !== undefined) this.timesOf(call).push(roundTripMs);
  }

  /**
   * `UpdateItem 350 (p50 180 ms, p99 410 ms; ×86 its 2.1 ms alone)`, …: each DynamoDB command's
   * calls and round trips, and its p50 against its median alone (`quiet`) where that was measured.
   */
  callSummary(quiet: ReadonlyMap<string, number> = new Map()): string {
    return [...this.calls]
      .map(([name, n]) => {
        const ms = this.roundTrips.get(name) ?? [];
        if (ms.length === 0) return `${name.replace(/Command$/, '')} ${n}`;
        const p50 = percentileOf(ms, 50);
        const alone = quiet.get(name);
        const against = alone === undefined ? '' : `; ×${Math.round(p50 / alone)} its ${alone.toFixed(1)} ms alone`;
        return `${name.replace(/Command$/, '')} ${n} (p50 ${Math.round(p50)} ms, p99 ${Math.round(percentileOf(ms, 99))} ms${against})`;
      })
      .join(', ');
  }

  private of(id: string): EventTimes {
    let times = this.events.get(id);
    if (!times) {
      times = { posted: [] };
      this.events.set(id, times);
    }
    return times;
  }

  /**
   * The stage table. Per event: created_at → commit answered → read → handed; per frame: handed →
   * POST answered → received, an event's k-th post answer paired with its k-th arrival (the client
   * cannot tell which connection id it is). "Since created_at" is each stage's time on the event's
   * own clock, so the rows add up; a frame posted by an earlier batch or a sync (its agent's feed
   * read after the event committed) can be answered before its own record is handed over, hence
   * the negative values a stage can show.
   */
  table(received: readonly Received[]): string {
    const byEvent = new Map<string, Received[]>();
    for (const r of received) byEvent.set(r.id, [...(byEvent.get(r.id) ?? []), r]);
    const stage = () => ({ delta: [] as number[], since: [] as number[] });
    const stages = {
      committed: stage(),
      read: stage(),
      handed: stage(),
      posted: stage(),
      received: stage(),
    };
    const add = (name: keyof typeof stages, at: number | undefined, from: number | undefined, created: number) => {
      if (at === undefined) return;
      stages[name].since.push(at - created);
      if (from !== undefined) stages[name].delta.push(at - from);
    };
    for (const [id, frames] of byEvent) {
      const t = this.events.get(id) ?? { posted: [] };
      const created = frames[0]!.createdAt;
      add('committed', t.committed, created, created);
      add('read', t.read, t.committed, created);
      add('handed', t.handed, t.read, created);
      const posts = [...t.posted].sort((a, b) => a - b);
      const arrivals = frames.map((f) => f.arrived).sort((a, b) => a - b);
      for (const post of posts) add('posted', post, t.handed, created);
      for (const [k, arrived] of arrivals.entries()) add('received', arrived, posts[k], created);
    }
    const p = (xs: number[], q: number) => (xs.length === 0 ? '–' : String(percentileOf(xs, q)));
    const row = (label: string, s: { delta: number[]; since: number[] }) =>
      `| ${label} | ${s.delta.length} | ${p(s.delta, 50)} | ${p(s.delta, 99)} | ${p(s.since, 50)} | ${p(s.since, 99)} |`;
    return [
      '| Stage (from the one before) | Samples | p50 ms | p99 ms | Since `created_at` p50 ms | p99 ms |',
      '|---|---|---|---|---|---|',
      row("transaction answered (the move's commit)", stages.committed),
      row("record first returned by GetRecords to the relay's poller", stages.read),
      row('push worker invoked with a hand-off holding it (the relay, its Invoke, the local Lambda)', stages.handed),
      row('@connections POST answered (per frame)', stages.posted),
      row('frame received by the client', stages.received),
    ].join('\n');
  }
}

/**
 * The trace inside the push thread (local/emulators/push-thread.ts loads this module there): its
 * hooks see the worker's hand-offs, its SDK and signed-request watches the thread's own calls.
 * The bench asks it to start, and to stop, which answers with what it recorded.
 */
export function threadTrace() {
  const trace = new PushTrace();
  return {
    hooks: trace.hooks,
    answer(question: unknown): TraceSnapshot | undefined {
      if (question === 'start') trace.start();
      if (question !== 'stop') return undefined;
      trace.stop();
      return trace.snapshot();
    },
  };
}

/**
 * `npm run bench -- sse`: how soon an event written to an agent's feed shows on its server-sent
 * events stream, and how often the stream reads the table, for the adaptive polling
 * (lib/events/feed/sse.ts: 250 ms after an event, doubling to 1 s while quiet) against fixed 1 s
 * polling as the baseline, both running at once on DynamoDB Local against the same write schedule.
 * The schedule mixes isolated events (0.5–2.5 s apart) and bursts (100–300 ms apart), as a
 * contract's transitions come.
 */
import { createUserWithKey, findCallerByApiKey } from '../lib/accounts/api-keys.ts';
import { createAgent } from '../lib/agents/agents.ts';
import { newUuid } from '../lib/core/ids.ts';
import { commitWithEvents } from '../lib/events/feed/outbox.ts';
import { type SseOptions, streamEvents } from '../lib/events/feed/sse.ts';
import { tableName } from '../lib/store/client.ts';
import { withBenchStore } from './_store.ts';

const EVENTS = Number(process.env['SSE_BENCH_EVENTS'] ?? 80);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Variant {
  label: string;
  options: Pick<SseOptions, 'pollMs' | 'minPollMs'>;
}
const VARIANTS: Variant[] = [
  { label: 'fixed 1 s (baseline)', options: { pollMs: 1000, minPollMs: 1000 } },
  { label: 'adaptive 250 ms → 1 s (shipped)', options: {} },
  { label: 'adaptive 250 ms → 2 s', options: { pollMs: 2000 } },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface Stream {
  agentId: string;
  arrivals: Map<string, number>;
  polls: number;
  stop(): void;
  done: Promise<void>;
}

function openStream(variant: Variant, agentId: string): Stream {
  let closed = false;
  const stream: Stream = {
    agentId,
    arrivals: new Map(),
    polls: 0,
    stop: () => (closed = true),
    done: Promise.resolve(),
  };
  stream.done = streamEvents(
    agentId,
    undefined,
    {
      write: (chunk) => {
        const id = /^id: (\S+)/.exec(chunk)?.[1];
        if (id) stream.arrivals.set(id, performance.now());
      },
      closed: () => closed,
    },
    {
      ...variant.options,
      // Called once per look at the table: the poll count.
      remainingMs: () => {
        stream.polls++;
        return 15 * 60_000;
      },
    },
  );
  return stream;
}

/** One event through the service's own writer (a feed position, then the transaction), next to a throwaway item. */
async function writeEvent(agentId: string): Promise<{ id: string; writtenAt: number }> {
  const result = await commitWithEvents(
    (now) => ({ Put: { TableName: tableName(), Item: { PK: `BENCH#${newUuid()}`, SK: now } } }),
    {
      agentIds: [agentId],
      type: 'contract.funded',
      data: { contract_id: 'ctr_bench', status: 'FUNDED', amount_cents: 100 } as never,
    },
  );
  if (!result.committed) throw new Error('bench event not committed');
  return { id: result.events[0]!.id, writtenAt: performance.now() };
}

export function run(): Promise<string> {
  return withBenchStore('sse', async () => {
    const caller = (await findCallerByApiKey((await createUserWithKey({ name: 'bench' })).api_key))!;
    const agents = await Promise.all(VARIANTS.map(() => createAgent(caller, { name: 'bench' })));
    const streams = VARIANTS.map((variant, i) => openStream(variant, agents[i]!.id));
    await sleep(1500);
    const started = performance.now();
    const pollsAtStart = streams.map((s) => s.polls);
    const written: Array<Array<{ id: string; writtenAt: number }>> = streams.map(() => []);
    for (let i = 0; i < EVENTS; i++) {
      const rows = await Promise.all(streams.map((s) => writeEvent(s.agentId)));
      for (const [v, row] of rows.entries()) written[v]!.push(row);
      await sleep(Math.random() < 0.4 ? 100 + Math.random() * 200 : 500 + Math.random() * 2000);
    }
    await sleep(1500);
    const minutes = (performance.now() - started) / 60_000;
    for (const s of streams) s.stop();
    await Promise.all(streams.map((s) => s.done));

    const rows = VARIANTS.map((variant, v) => {
      const delays = written[v]!.map((w) => streams[v]!.arrivals.get(w.id)! - w.writtenAt).sort((a, b) => a - b);
      const missing = written[v]!.filter((w) => !streams[v]!.arrivals.has(w.id)).length;
      return {
        label: variant.label,
        p50: percentile(delays, 50),
        p99: percentile(delays, 99),
        perMinute: (streams[v]!.polls - pollsAtStart[v]!) / minutes,
        missing,
      };
    });
    const base = rows[0]!;
    return [
      '### Server-sent events: time to the stream and table reads',
      '',
      `DynamoDB Local; ${EVENTS} events per stream written by the same schedule to every stream at once (40 % within 100–300 ms of the previous one, the rest 0.5–2.5 s apart), ${minutes.toFixed(1)} min. ` +
        "Delay = from the write's acknowledgement to the frame reaching the stream's writer. Reads = looks at the feed per minute (an idle look is one consistent GetItem of the agent's feed counter; one that finds events adds a Query) while the stream ran.",
      '',
      '| Polling | Delay p50 ms | Delay p99 ms | p50 ratio | Reads / min | Reads ratio | Missing |',
      '|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.label} | ${r.p50.toFixed(0)} | ${r.p99.toFixed(0)} | ${(r.p50 / base.p50).toFixed(2)} | ${r.perMinute.toFixed(1)} | ${(r.perMinute / base.perMinute).toFixed(2)} | ${r.missing} |`,
      ),
    ].join('\n');
  });
}

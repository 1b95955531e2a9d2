/**
 * `npm run bench -- push`: the push channel at the issue's scale on one machine. 1,000 WebSocket
 * connections across 100 agents (10 each, the per-agent cap), opened through the real handshake
 * of the local stand-in ($connect with the key as a subprotocol, then a sync, as the client does),
 * while contracts move through the REST routes (fund → verification → release, each with a buyer
 * and a seller agent: 6 events per contract): first one at a time (PUSH_BENCH_ONE_AT_A_TIME
 * contracts in turn: the latency row, p50 ≤ 300 ms and p99 ≤ 1 s asked), then 10, 20 and 30 at once:
 * the lighter loads are the baseline the issue's load is read against, in the same run
 * (PUSH_BENCH_CONTRACTS, a comma-separated list, changes them; the last is traced stage by stage).
 * The relay reads DynamoDB Local's stream and hands new feed slots to the push worker (an
 * asynchronous invoke, in its thread), which posts through the stand-in's @connections API, as in `npm start`; the
 * clients run in a process of their own (bench/_push-clients.ts: in AWS they never share the
 * service's CPU). Each frame's way is traced stage by stage (bench/_push-trace.ts).
 *
 * Per connection: every event of its agent's feed must arrive (missed = feed events that never
 * did), each new id above the last one seen (out of order = a new id below it; a repeat of an id
 * already seen, which two overlapping sends can cause and the client drops, is counted apart).
 * Delay = from the event's `created_at` (taken before its transaction commits, so an upper bound)
 * to the frame's arrival at the client; and from the move's acknowledgement (its 200 reaching the
 * bench: the commit and the answer are behind it) to the frame's arrival, as the SSE bench counts
 * (negative when the frame beats the answer).
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import {
  BatchGetCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { createUserWithKey } from '../lib/accounts/api-keys.ts';
import { PUSH } from '../lib/core/settings.ts';
import { readFeed } from '../lib/events/feed/reader.ts';
import { db, tableName } from '../lib/store/client.ts';
import type { DynamoDbLocal } from '../local/emulators/dynamodb-local.ts';
import { startEventPipeline } from '../local/emulators/event-pipeline.ts';
import { startPushThread } from '../local/emulators/push-thread.ts';
import { createLocalApi, listen } from '../local/gateway/api-gateway.ts';
import { UNLIMITED_KEY_LIMITS } from '../local/gateway/key-throttle.ts';
import { percentileOf, publishBenchTemplate } from './_api.ts';
import { processCpuSeconds, threadIds, threadsCpuSeconds } from './_cpu.ts';
import { type ClientReport, startPushClients } from './_push-clients.ts';
import { PushTrace, type TraceSnapshot } from './_push-trace.ts';
import { withBenchStore } from './_store.ts';

const AGENTS = Number(process.env['PUSH_BENCH_AGENTS'] ?? 100);
const PER_AGENT = PUSH.connectionsPerAgent;
/** The loads, lightest first: how many contracts move at once; the last (the issue's 30) is the one traced stage by stage. */
const LOADS = loadsOf(process.env['PUSH_BENCH_CONTRACTS'] ?? '10,20,30');
/**
 * Before the loads, the quiet row the latency goal is read on (p50 ≤ 300 ms, p99 ≤ 1 s): this many
 * contracts moved one at a time, each move awaited before the next, so one contract is moving at any time.
 */
const ONE_AT_A_TIME = Number(process.env['PUSH_BENCH_ONE_AT_A_TIME'] ?? 20);
/** Contracts moved once before the loads, untimed: the moves' first imports, commits and batches are not the baseline's. */
const WARM_UP_CONTRACTS = 2;
/** The pause after a load's last frame, for the push's last cursor writes to end before the next load or baseline. */
const SETTLE_MS = 1000;

/** Handshakes in flight at once while the 1,000 connect (API Gateway takes 500 new connections per second per account). */
const CONNECTING_AT_ONCE = 50;
const DEADLINE_MS = 120_000;

function loadsOf(list: string): number[] {
  const loads = list.split(',').map(Number);
  if (!loads.every((n, i) => Number.isInteger(n) && n > 0 && (i === 0 || n > loads[i - 1]!)))
    throw new Error(`PUSH_BENCH_CONTRACTS: "${list}" is not a list of growing whole numbers, such as 10,20,30`);
  return loads;
}

/**
 * One POST as a careful client makes it: with an Idempotency-Key, retried under the same key after
 * a 5xx or a 429 (a move whose answer was lost is answered, not done twice: docs/api.md). On a
 * machine shared with other work, DynamoDB Local sometimes outlasts a route's 10 s deadline.
 */
async function post<T>(base: string, key: string, path: string, body?: unknown): Promise<T> {
  const idempotencyKey = randomUUID();
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'idempotency-key': idempotencyKey,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (res.status < 300) return JSON.parse(text) as T;
    const retry = res.status >= 500 || res.status === 429 || text.includes('idempotency_key_in_use');
    if (!retry || attempt >= 5) throw new Error(`POST ${path}: ${res.status} ${text}`);
    await new Promise((r) => setTimeout(r, 500 * attempt));
  }
}

export function run(): Promise<string> {
  process.env['LOG_LEVEL'] ??= 'silent';
  return withBenchStore('push', measure);
}

/**
 * The baseline the phase's store round trips are read against: QUIET_CALLS calls of each kind the
 * phase makes, on scratch items, one at a time while nothing else runs, recorded by the trace.
 */
const QUIET_CALLS = 20;
async function quietRoundTrips(trace: PushTrace): Promise<Map<string, number>> {
  const TableName = tableName();
  const key = (i: number) => ({ PK: 'BENCH#quiet', SK: `BENCH#${i}` });
  const calls: Array<(i: number) => Promise<unknown>> = [
    (i) => db().send(new PutCommand({ TableName, Item: { ...key(i), n: i } })),
    () =>
      db().send(
        new UpdateCommand({
          TableName,
          Key: key(0),
          UpdateExpression: 'ADD n :one',
          ExpressionAttributeValues: { ':one': 1 },
        }),
      ),
    // Three items, as a move's commit has at least (the contract and an event per party).
    (i) =>
      db().send(
        new TransactWriteCommand({
          TransactItems: [1, 2, 3].map((k) => ({ Put: { TableName, Item: key(1000 * k + i) } })),
        }),
      ),
    () => db().send(new GetCommand({ TableName, Key: key(0), ConsistentRead: true })),
    () =>
      db().send(
        new BatchGetCommand({ RequestItems: { [TableName]: { Keys: [key(0), key(1)], ConsistentRead: true } } }),
      ),
    () =>
      db().send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': 'BENCH#quiet' },
          Limit: 10,
        }),
      ),
  ];
  trace.start();
  for (const call of calls) for (let i = 0; i < QUIET_CALLS; i++) await call(i);
  trace.stop();
  const medians = trace.medianRoundTrips();
  trace.forgetCalls();
  return medians;
}

/** What one load's phase gave: its contracts, and the time and CPU from its first move to its last frame. */
interface Phase {
  contracts: string[];
  /** The contracts moved one after another (the quiet row), not all at once. */
  inTurn: boolean;
  moveSeconds: number;
  phaseSeconds: number;
  cpu: { server: number; push: number; store: number; clients: number };
  load: string;
}

/** CPU seconds from now on: this process's, the push thread's, DynamoDB Local's and the clients'. */
function cpuMeter(of: { push: readonly string[]; store: number; clients: number }): () => Phase['cpu'] {
  const server = process.cpuUsage();
  const push = threadsCpuSeconds(of.push);
  const store = processCpuSeconds(of.store);
  const clients = processCpuSeconds(of.clients);
  return () => {
    const used = process.cpuUsage(server);
    return {
      server: (used.user + used.system) / 1e6,
      push: (threadsCpuSeconds(of.push) ?? Number.NaN) - (push ?? Number.NaN),
      store: (processCpuSeconds(of.store) ?? Number.NaN) - (store ?? Number.NaN),
      clients: (processCpuSeconds(of.clients) ?? Number.NaN) - (clients ?? Number.NaN),
    };
  };
}

/** Each agent's feed: its events' ids and the contract each is about. */
type Feeds = Map<string, { id: string; contract: string }[]>;

/** An agent's whole feed, page after page, up to the first slot still being written. */
async function readWholeFeed(agentId: string): Promise<{ id: string; contract: string }[]> {
  const events: { id: string; contract: string }[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await readFeed(agentId, after, 100);
    for (const e of page.events)
      events.push({ id: e.id, contract: String((e.data as { contract_id?: string }).contract_id) });
    if (page.drained || page.cursor === after) return events;
    after = page.cursor;
  }
}

/** The agents' feeds, once each holds what it is owed: a feed read while a slot is still being written stops before it, so read again. */
async function readOwedFeeds(owed: Map<string, number>): Promise<Feeds> {
  const feeds: Feeds = new Map();
  const complete = () => [...owed].every(([id, n]) => feeds.get(id)?.length === n);
  const deadline = Date.now() + DEADLINE_MS;
  while (!complete() && Date.now() < deadline) {
    for (const agentId of owed.keys()) feeds.set(agentId, await readWholeFeed(agentId));
    if (!complete()) await new Promise((r) => setTimeout(r, 500));
  }
  if (!complete()) throw new Error('the feeds do not hold an event per move and party');
  return feeds;
}

/** One load's row: what its contracts' events owed the connections, and how their frames arrived. */
function phaseRow(
  phase: Phase,
  outcome: {
    feeds: Feeds;
    reports: ClientReport[];
    acked: Map<string, number>;
    partiesOf: Map<string, [string, string]>;
  },
) {
  const mine = new Set(phase.contracts);
  const feedOf = (agentId: string) => outcome.feeds.get(agentId)!.filter((e) => mine.has(e.contract));
  const frames = outcome.reports.flatMap((c) => c.frames).filter((f) => mine.has(f.move.split('|')[0]!));
  const delays = frames.map((f) => f.arrived - f.createdAt);
  const afterAck = frames.filter((f) => outcome.acked.has(f.move)).map((f) => f.arrived - outcome.acked.get(f.move)!);
  const parties = new Set(phase.contracts.flatMap((id) => outcome.partiesOf.get(id)!));
  return {
    phase,
    frames,
    events: [...parties].reduce((n, agentId) => n + feedOf(agentId).length, 0),
    owed: outcome.reports.reduce((n, c) => n + feedOf(c.agentId).length, 0),
    missed: outcome.reports.reduce((n, c) => n + feedOf(c.agentId).filter((e) => !c.seen.includes(e.id)).length, 0),
    outOfOrder: frames.filter((f) => f.outOfOrder).length,
    p50: percentileOf(delays, 50),
    p99: percentileOf(delays, 99),
    max: Math.max(...delays),
    ackP50: percentileOf(afterAck, 50),
    ackP99: percentileOf(afterAck, 99),
    cores: (phase.cpu.server + phase.cpu.store + phase.cpu.clients) / phase.phaseSeconds,
  };
}

async function measure(dynamo: DynamoDbLocal): Promise<string> {
  const trace = new PushTrace();
  // What is measured is the channel, not one key's usage plan (docs/limits.md).
  const gateway = await listen(createLocalApi(undefined, { keyLimits: UNLIMITED_KEY_LIMITS }), 0);
  // As `npm start` runs it: the push pipeline in a thread of its own; its threads told from the API's.
  const before = new Set(threadIds());
  const stream = await startPushThread({
    connectionsEndpoint: gateway.url,
    traceModule: new URL('./_push-trace.ts', import.meta.url).href,
  });
  const pushThreads = threadIds().filter((id) => !before.has(id));
  // The stream's reader: the relay, which hands each batch's new feed slots to the push worker.
  const pipeline = await startEventPipeline({
    tableName: tableName(),
    dynamoEndpoint: process.env['DYNAMODB_ENDPOINT']!,
    onRelayRead: trace.hooks.read,
  });
  const clients = startPushClients();
  try {
    const base = gateway.url;
    const { api_key: key } = await createUserWithKey({ name: 'bench' });
    // One at a time: the account's agent counter is one item, and concurrent creations only conflict on it.
    const agents: string[] = [];
    for (let i = 0; i < AGENTS; i++)
      agents.push((await post<{ id: string }>(base, key, '/api/v1/agents', { name: `agent ${i}` })).id);
    const template = await publishBenchTemplate(base, key);
    // Contract k is between agents 2k and 2k + 1 (modulo the agents): the warm-up's, then each load's.
    const partiesOf = new Map<string, [string, string]>();
    const contractsOf: string[][] = [];
    for (const count of [WARM_UP_CONTRACTS, ONE_AT_A_TIME, ...LOADS]) {
      const contracts: string[] = [];
      for (let i = 0; i < count; i++) {
        const k = partiesOf.size;
        const parties: [string, string] = [agents[(2 * k) % AGENTS]!, agents[(2 * k + 1) % AGENTS]!];
        const contract = await post<{ id: string }>(base, key, '/api/v1/contracts', {
          template_id: template.id,
          variables: {},
          amount_cents: 100,
          agent_id: parties[0],
          seller_agent_id: parties[1],
        });
        partiesOf.set(contract.id, parties);
        contracts.push(contract.id);
      }
      contractsOf.push(contracts);
    }

    const pushUrl = `${base.replace('http', 'ws')}${PUSH.localPath}`;
    const connectStarted = performance.now();
    const wanted = agents.flatMap((agentId) => Array.from({ length: PER_AGENT }, () => agentId));
    const opened = await clients.open(pushUrl, key, wanted, CONNECTING_AT_ONCE);
    const connectSeconds = (performance.now() - connectStarted) / 1000;
    // Each contract through its three moves, all at once; when each move's answer came back. Each
    // move gives each of its two parties one event; the clients then wait until every connection has
    // what it is owed so far (or the deadline). The feeds are read only at the end, so the bench's
    // own reads do not compete with the frames it times, and what was missed is judged against them.
    const acked = new Map<string, number>();
    const owed = new Map<string, number>(agents.map((id) => [id, 0]));
    let reports: ClientReport[] = [];
    const moveOne = async (id: string) => {
      await post(base, key, `/api/v1/contracts/${id}/fund`);
      acked.set(`${id}|contract.funded`, Date.now());
      await post(base, key, `/api/v1/contracts/${id}/verification`, { passed: true });
      acked.set(`${id}|contract.verification.completed`, Date.now());
      await post(base, key, `/api/v1/contracts/${id}/release`);
      acked.set(`${id}|contract.released`, Date.now());
    };
    const moveAll = async (contracts: string[], inTurn = false) => {
      if (inTurn) for (const id of contracts) await moveOne(id);
      else await Promise.all(contracts.map(moveOne));
      for (const id of contracts) for (const party of partiesOf.get(id)!) owed.set(party, owed.get(party)! + 3);
    };
    const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));
    const [warmUp, oneAtATime, ...loadContracts] = contractsOf;
    await moveAll(warmUp!);
    reports = await clients.awaitOwed(owed, Date.now() + DEADLINE_MS);
    await settle();
    const quiet = await quietRoundTrips(trace);

    // The quiet row, then each load in turn, the heaviest (the issue's) last and traced stage by stage.
    const phases: Phase[] = [];
    let inThread: TraceSnapshot | undefined;
    const runs = [
      { contracts: oneAtATime!, inTurn: true },
      ...loadContracts.map((contracts) => ({ contracts, inTurn: false })),
    ];
    for (const [p, { contracts, inTurn }] of runs.entries()) {
      const isTraced = p === runs.length - 1;
      if (isTraced) {
        trace.start();
        await stream.ask('start');
      }
      const cpuSince = cpuMeter({ push: pushThreads, store: dynamo.pid, clients: clients.pid });
      const moveStarted = performance.now();
      await moveAll(contracts, inTurn);
      const moveSeconds = (performance.now() - moveStarted) / 1000;
      reports = await clients.awaitOwed(owed, Date.now() + DEADLINE_MS);
      phases.push({
        contracts,
        inTurn,
        moveSeconds,
        phaseSeconds: (performance.now() - moveStarted) / 1000,
        cpu: cpuSince(),
        load: loadavg()[0]!.toFixed(1),
      });
      if (isTraced) {
        trace.stop();
        inThread = (await stream.ask('stop')) as TraceSnapshot;
        trace.merge(inThread);
      }
      await settle();
    }
    process.stderr.write(
      `store calls from the push thread: ${inThread!.calls.map(([name, n]) => `${name} ${n}`).join(', ')}\n`,
    );

    const feeds = await readOwedFeeds(owed);

    const rows = phases.map((phase) => phaseRow(phase, { feeds, reports, acked, partiesOf }));
    const [quietRow, ...loadRows] = rows;
    const lightest = loadRows[0]!;
    const traced = rows.at(-1)!;
    const repeats = reports.reduce((n, c) => n + c.repeats, 0);
    const stages = trace.table(traced.frames);
    const calls = trace.callSummary(quiet);
    process.stderr.write(`${stages}\n${calls}\n`);
    const { phase } = traced;
    const cpu = phase.cpu;
    return [
      `### Push channel: ${opened.toLocaleString('en-US')} connections, one contract moving at a time, then ${LOADS.join(', ')} at once`,
      '',
      `**One contract moving at a time (the latency goal: p50 ≤ 300 ms, p99 ≤ 1 s): delay p50 ${quietRow!.p50} ms, p99 ${quietRow!.p99} ms** over ${quietRow!.frames.length} frames, ${quietRow!.missed} missed, ${quietRow!.outOfOrder} out of order. **The ${traced.phase.contracts.length}-contract burst (a throughput check): ${traced.missed} missed, ${traced.outOfOrder} out of order** of ${traced.owed} frames owed, p50 ${traced.p50} ms, p99 ${traced.p99} ms.`,
      '',
      `DynamoDB Local (in memory), the local API with the WebSocket stand-in in one process with, as \`npm start\` runs them, the relay on the table's stream (its only reader here besides the search indexer) and, in a worker thread, the push worker behind the local Lambda Invoke API the relay hands each batch's new feed slots to; the clients in a second process (in AWS no client shares the service's CPU; one event loop for both would stamp a frame when the server's work let it), this machine. ${opened.toLocaleString('en-US')} connections across ${agents.length} agents (${PER_AGENT} each) opened through the handshake in ${connectSeconds.toFixed(1)} s (${CONNECTING_AT_ONCE} at a time). Then ${WARM_UP_CONTRACTS} contracts moved, untimed (the moves' first imports and batches); then ${ONE_AT_A_TIME} contracts one after another, each move awaited before the next (the first row); then each load in turn: that many contracts moved at once (fund, verification, release; each move gives each of the contract's two parties an event, a frame owed to each of the party's ${PER_AGENT} connections), the next load starting ${SETTLE_MS / 1000} s after every frame of the one before had arrived (or ${DEADLINE_MS / 1000} s had passed). ` +
        "Delay = from the event's `created_at` (before its commit) to the frame's arrival at the client; after the answer = from the move's 200 reaching the bench to the frame's arrival (the SSE table's measure; negative when the frame beats the answer). Busy cores = the CPU of the service, DynamoDB Local and the clients over the phase's wall time (the machine has 2).",
      '',
      '| Contracts at once | Moves s | Events | Frames owed | Missed | Out of order | Delay p50 ms | Delay p99 ms | Delay max ms | After the answer p50 ms | After the answer p99 ms | p50 against the lightest load at once | Phase s | Busy cores |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.phase.inTurn ? `1 (${r.phase.contracts.length} in turn)` : r.phase.contracts.length} | ${r.phase.moveSeconds.toFixed(1)} | ${r.events} | ${r.owed} | ${r.missed} | ${r.outOfOrder} | ${r.p50} | ${r.p99} | ${r.max} | ${r.ackP50} | ${r.ackP99} | ×${(r.p50 / lightest.p50).toFixed(2)} | ${r.phase.phaseSeconds.toFixed(1)} | ${r.cores.toFixed(1)} |`,
      ),
      '',
      `Repeats over the whole run (an id a connection had seen, which two overlapping sends can cause and the client drops): ${repeats}.`,
      '',
      `Where the delay goes at ${phase.contracts.length} contracts, stage by stage (a trace of that phase):`,
      '',
      stages,
      '',
      `In that phase: ${phase.phaseSeconds.toFixed(1)} s of wall time from the first move to the last frame, in which the service's process used ${cpu.server.toFixed(1)} s of CPU (${cpu.push.toFixed(1)} s of it in the push thread), DynamoDB Local ${cpu.store.toFixed(1)} s and the clients' process ${cpu.clients.toFixed(1)} s (2 cores; load average ${phase.load} at the end). Store calls meanwhile, each with its round trip (from the SDK call to its answer) and, against it, its median when ${QUIET_CALLS} of its kind ran one at a time on scratch items with the service otherwise idle (after the warm-up): ${calls}.`,
    ].join('\n');
  } finally {
    trace.stop();
    clients.close();
    await pipeline.stop();
    await stream.stop();
    await gateway.close();
  }
}

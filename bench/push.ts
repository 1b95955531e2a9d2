/**
 * `npm run bench -- push`: the push channel at the scale on one machine. 1,000 WebSocket
 * connections across 100 agents (10 each, the per-agent cap), opened through the real handshake
 * of the local stand-in ($connect with the key as a subprotocol, then a sync, as the client does),
 * while 30 contracts move at once through the REST routes (fund → verification → release, each
 * with a buyer and a seller agent: 6 events per contract). The push worker runs on DynamoDB
 * Local's stream and posts through the stand-in's @connections API, as in `npm start`.
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
import { createUserWithKey } from '../lib/accounts/api-keys.ts';
import { PUSH } from '../lib/core/settings.ts';
import { readFeed } from '../lib/events/feed/reader.ts';
import { tableName } from '../lib/store/client.ts';
import { startPushStream } from '../local/emulators/push-stream.ts';
import { createLocalApi, listen } from '../local/gateway/api-gateway.ts';
import { UNLIMITED_KEY_LIMITS } from '../local/gateway/key-throttle.ts';
import { percentile, publishBenchTemplate } from './_api.ts';
import { withBenchStore } from './_store.ts';

const AGENTS = Number(process.env['PUSH_BENCH_AGENTS'] ?? 100);
const PER_AGENT = PUSH.connectionsPerAgent;
const CONTRACTS = Number(process.env['PUSH_BENCH_CONTRACTS'] ?? 30);
/** Handshakes in flight at once while the 1,000 connect (API Gateway takes 500 new connections per second per account). */
const CONNECTING_AT_ONCE = 50;
const DEADLINE_MS = 120_000;

interface Connection {
  agentId: string;
  socket: WebSocket;
  seen: Set<string>;
  last: string;
  outOfOrder: number;
  repeats: number;
  delays: number[];
  /** Each new frame: the move that made it (contract id and event type) and when it arrived. */
  arrivals: { move: string; arrived: number }[];
}

function connect(url: string, key: string, agentId: string): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url}?agent_id=${agentId}`, [PUSH.protocol, `key.${key}`]);
    const connection: Connection = {
      agentId,
      socket,
      seen: new Set(),
      last: '',
      outOfOrder: 0,
      repeats: 0,
      delays: [],
      arrivals: [],
    };
    socket.addEventListener('message', (message) => {
      const arrived = Date.now();
      const event = JSON.parse(String(message.data)) as {
        id: string;
        type: string;
        created_at: string;
        data: { contract_id?: string };
      };
      if (connection.seen.has(event.id)) {
        connection.repeats++;
        return;
      }
      if (event.id < connection.last) connection.outOfOrder++;
      else connection.last = event.id;
      connection.seen.add(event.id);
      connection.delays.push(arrived - Date.parse(event.created_at));
      connection.arrivals.push({ move: `${event.data.contract_id}|${event.type}`, arrived });
    });
    socket.addEventListener('open', () => {
      socket.send(JSON.stringify({ action: 'sync' }));
      resolve(connection);
    });
    socket.addEventListener('error', () => reject(new Error(`handshake for ${agentId} refused`)));
  });
}

async function inBatches<T, R>(items: T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
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

async function measure(): Promise<string> {
  // What is measured is the channel, not one key's usage plan (docs/limits.md).
  const gateway = await listen(createLocalApi(undefined, { keyLimits: UNLIMITED_KEY_LIMITS }), 0);
  const stream = await startPushStream({
    tableName: tableName(),
    dynamoEndpoint: process.env['DYNAMODB_ENDPOINT']!,
    connectionsEndpoint: gateway.url,
  });
  const connections: Connection[] = [];
  try {
    const base = gateway.url;
    const { api_key: key } = await createUserWithKey({ name: 'bench' });
    // One at a time: the account's agent counter is one item, and concurrent creations only conflict on it.
    const agents: string[] = [];
    for (let i = 0; i < AGENTS; i++)
      agents.push((await post<{ id: string }>(base, key, '/api/v1/agents', { name: `agent ${i}` })).id);
    const template = await publishBenchTemplate(base, key);
    const contracts: string[] = [];
    for (let i = 0; i < CONTRACTS; i++) {
      const contract = await post<{ id: string }>(base, key, '/api/v1/contracts', {
        template_id: template.id,
        variables: {},
        amount_cents: 100,
        agent_id: agents[(2 * i) % AGENTS],
        seller_agent_id: agents[(2 * i + 1) % AGENTS],
      });
      contracts.push(contract.id);
    }

    const pushUrl = `${base.replace('http', 'ws')}${PUSH.localPath}`;
    const connectStarted = performance.now();
    const wanted = agents.flatMap((agentId) => Array.from({ length: PER_AGENT }, () => agentId));
    connections.push(...(await inBatches(wanted, CONNECTING_AT_ONCE, (agentId) => connect(pushUrl, key, agentId))));
    const connectSeconds = (performance.now() - connectStarted) / 1000;

    // 30 contracts at once, each through its three moves; when each move's answer came back.
    const acked = new Map<string, number>();
    const moveStarted = performance.now();
    await Promise.all(
      contracts.map(async (id) => {
        await post(base, key, `/api/v1/contracts/${id}/fund`);
        acked.set(`${id}|contract.funded`, Date.now());
        await post(base, key, `/api/v1/contracts/${id}/verification`, { passed: true });
        acked.set(`${id}|contract.verification.completed`, Date.now());
        await post(base, key, `/api/v1/contracts/${id}/release`);
        acked.set(`${id}|contract.released`, Date.now());
      }),
    );
    const moveSeconds = (performance.now() - moveStarted) / 1000;

    // Each move gives each of its two parties one event: the feeds must end with these counts. A feed
    // read while a slot is still being written stops before it, so read again until they do.
    const owed = new Map<string, number>(agents.map((id) => [id, 0]));
    for (let i = 0; i < contracts.length; i++)
      for (const party of [agents[(2 * i) % AGENTS]!, agents[(2 * i + 1) % AGENTS]!])
        owed.set(party, owed.get(party)! + 3);
    const feeds = new Map<string, string[]>();
    const readFeeds = async () => {
      for (const agentId of agents)
        feeds.set(
          agentId,
          (await readFeed(agentId, undefined, 100)).events.map((e) => e.id),
        );
    };
    const missing = () =>
      connections.reduce((n, c) => n + feeds.get(c.agentId)!.filter((id) => !c.seen.has(id)).length, 0);
    const complete = () => agents.every((id) => feeds.get(id)!.length === owed.get(id));
    const deadline = Date.now() + DEADLINE_MS;
    await readFeeds();
    while ((!complete() || missing() > 0) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      if (!complete()) await readFeeds();
    }
    if (!complete()) throw new Error('the feeds do not hold an event per move and party');

    const events = [...feeds.values()].reduce((n, ids) => n + ids.length, 0);
    const expected = connections.reduce((n, c) => n + feeds.get(c.agentId)!.length, 0);
    const delays = connections.flatMap((c) => c.delays).sort((a, b) => a - b);
    const afterAck = connections
      .flatMap((c) => c.arrivals)
      .filter((a) => acked.has(a.move))
      .map((a) => a.arrived - acked.get(a.move)!)
      .sort((a, b) => a - b);
    const outOfOrder = connections.reduce((n, c) => n + c.outOfOrder, 0);
    const repeats = connections.reduce((n, c) => n + c.repeats, 0);
    return [
      '### Push channel: 1,000 connections, 30 contracts moving at once',
      '',
      `DynamoDB Local (in memory) and the local WebSocket stand-in (\`npm start\`'s), one process, this machine. ${connections.length} connections across ${agents.length} agents (${PER_AGENT} each) opened through the handshake in ${connectSeconds.toFixed(1)} s (${CONNECTING_AT_ONCE} at a time); then ${contracts.length} contracts moved at once (fund, verification, release: ${moveSeconds.toFixed(1)} s for all ${contracts.length * 3} moves), ${events} events in the agents' feeds, ${expected} frames owed to the connections. ` +
        "Delay = from the event's `created_at` (before its commit) to the frame's arrival at the client; after the answer = from the move's 200 reaching the bench to the frame's arrival (the SSE table's measure; negative when the frame beats the answer).",
      '',
      '| Connections | Agents | Events | Frames owed | Missed | Out of order | Repeats (dropped by the client) | Delay p50 ms | Delay p99 ms | Delay max ms | After the answer p50 ms | After the answer p99 ms |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
      `| ${connections.length} | ${agents.length} | ${events} | ${expected} | ${missing()} | ${outOfOrder} | ${repeats} | ${percentile(delays, 50)} | ${percentile(delays, 99)} | ${delays.at(-1)} | ${percentile(afterAck, 50)} | ${percentile(afterAck, 99)} |`,
    ].join('\n');
  } finally {
    for (const c of connections) c.socket.close();
    await stream.stop();
    await gateway.close();
  }
}

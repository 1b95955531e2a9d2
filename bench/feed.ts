/**
 * The feed's ordering guarantee and what it costs (docs/events.md, "The feed position"), on the
 * local runtime through real HTTP:
 * - visibility: time from a transition's 2xx to the event being in the hands of a cursor poller
 *   (following next_cursor as fast as it can) and of an SSE client, p50/p99; and how many events
 *   each of them never saw;
 * - the writers' side: latency of the transition itself when WAVE transitions hit one agent at
 *   once (every one of them must take the agent's next feed position), against the same
 *   transitions made one at a time in the same run.
 */
import { parseSse } from '../client/http/sse.ts';
import { createUserWithKey } from '../lib/accounts/api-keys.ts';
import { createLocalApi, listen } from '../local/gateway/api-gateway.ts';
import { UNLIMITED_KEY_LIMITS } from '../local/gateway/key-throttle.ts';
import { api, percentile, publishBenchTemplate } from './_api.ts';
import { withBenchStore } from './_store.ts';

const CONTRACTS = 120;
const WAVE = 20;

const pct = (values: number[], p: number) =>
  percentile(
    [...values].sort((a, b) => a - b),
    p,
  );

interface Seen {
  at: Map<string, number>;
  count: number;
  stop(): Promise<void>;
}

type FeedEvent = { id: string; type: string; data: { contract_id: string } };
const eventKey = (e: FeedEvent) => `${e.data.contract_id}/${e.type}`;

function poller(base: string, key: string, agentId: string): Seen {
  const seen: Seen = { at: new Map(), count: 0, stop: async () => undefined };
  let running = true;
  const loop = (async () => {
    let cursor: string | null = null;
    while (running) {
      const page: { data: FeedEvent[]; next_cursor: string | null } = await api(
        base,
        key,
        'GET',
        `/api/v1/agents/${agentId}/events?limit=100${cursor ? `&after=${cursor}` : ''}`,
      );
      const now = performance.now();
      for (const e of page.data) {
        seen.count++;
        if (!seen.at.has(eventKey(e))) seen.at.set(eventKey(e), now);
      }
      cursor = page.next_cursor;
    }
  })();
  seen.stop = async () => {
    running = false;
    await loop;
  };
  return seen;
}

async function sse(base: string, key: string, agentId: string): Promise<Seen> {
  const controller = new AbortController();
  const res = await fetch(`${base}/api/v1/agents/${agentId}/events/stream`, {
    headers: { authorization: `Bearer ${key}` },
    signal: controller.signal,
  });
  const seen: Seen = { at: new Map(), count: 0, stop: async () => undefined };
  const reading = (async () => {
    try {
      for await (const frame of parseSse(res.body!)) {
        const e = JSON.parse(frame.data) as FeedEvent;
        seen.count++;
        if (!seen.at.has(eventKey(e))) seen.at.set(eventKey(e), performance.now());
      }
    } catch {
      // aborted at the end
    }
  })();
  seen.stop = async () => {
    controller.abort();
    await reading;
  };
  return seen;
}

export function run(): Promise<string> {
  process.env['LOG_LEVEL'] ??= 'silent';
  return withBenchStore('feed', measure);
}

async function measure(): Promise<string> {
  // What is measured here is the feed / delivery, not one key's usage plan (docs/limits.md).
  const gateway = await listen(createLocalApi(undefined, { keyLimits: UNLIMITED_KEY_LIMITS }), 0);
  try {
    const base = gateway.url;
    const { api_key: key } = await createUserWithKey({ name: 'bench' });
    const [buyer, seller] = await Promise.all([
      api<{ id: string }>(base, key, 'POST', '/api/v1/agents', { name: 'buyer' }),
      api<{ id: string }>(base, key, 'POST', '/api/v1/agents', { name: 'seller' }),
    ]);
    const template = await publishBenchTemplate(base, key);
    const contracts: string[] = [];
    for (let i = 0; i < CONTRACTS * 2; i++) {
      const c = await api<{ id: string }>(base, key, 'POST', '/api/v1/contracts', {
        template_id: template.id,
        variables: {},
        amount_cents: 100,
        agent_id: buyer.id,
        seller_agent_id: seller.id,
      });
      contracts.push(c.id);
    }
    const fund = async (contractId: string, acked: Map<string, number>, took: number[]) => {
      const started = performance.now();
      await api(base, key, 'POST', `/api/v1/contracts/${contractId}/fund`);
      const now = performance.now();
      took.push(now - started);
      acked.set(`${contractId}/contract.funded`, now);
    };

    // One at a time: the writers' baseline.
    const alone: number[] = [];
    for (const id of contracts.slice(CONTRACTS)) await fund(id, new Map(), alone);

    // Waves of concurrent transitions on the same two agents, followed by a poller and an SSE client.
    const pollerSeen = poller(base, key, buyer.id);
    const sseSeen = await sse(base, key, buyer.id);
    const acked = new Map<string, number>();
    const inWaves: number[] = [];
    for (let i = 0; i < CONTRACTS; i += WAVE)
      await Promise.all(contracts.slice(i, i + WAVE).map((id) => fund(id, acked, inWaves)));
    const settle = performance.now() + 5000;
    while (performance.now() < settle && (pollerSeen.at.size < CONTRACTS * 2 || sseSeen.at.size < CONTRACTS * 2))
      await new Promise((r) => setTimeout(r, 50));
    await Promise.all([pollerSeen.stop(), sseSeen.stop()]);

    const lag = (seen: Seen) =>
      [...acked].filter(([k]) => seen.at.has(k)).map(([k, t]) => Math.max(0, seen.at.get(k)! - t));
    const missed = (seen: Seen) => [...acked.keys()].filter((k) => !seen.at.has(k)).length;
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    const aloneP50 = pct(alone, 50);
    const row = (name: string, values: number[]) =>
      `| ${name} | ${ms(pct(values, 50))} | ${ms(pct(values, 99))} | ${(pct(values, 50) / aloneP50).toFixed(2)}× |`;
    const pl = lag(pollerSeen);
    const sl = lag(sseSeen);
    return [
      '### Contract event feed: ordering guarantee and visibility (local runtime)',
      '',
      `${CONTRACTS} contracts funded in waves of ${WAVE} concurrent requests on the same buyer and seller agents, through the local API Gateway; a poller follows next_cursor as fast as it can and an SSE client listens, both on the buyer agent. Baseline: the same transition made one at a time (p50 ${ms(aloneP50)}), in the same run.`,
      '',
      '| Measure | p50 | p99 | p50 / one-at-a-time transition |',
      '|---|---|---|---|',
      row(`transition 2xx latency, ${WAVE} at once on one agent`, inWaves),
      row('2xx → visible to the cursor poller', pl),
      row('2xx → received by the SSE client', sl),
      '',
      `Events never seen (of ${CONTRACTS}): poller ${missed(pollerSeen)}, SSE ${missed(sseSeen)}.`,
    ].join('\n');
  } finally {
    await gateway.close();
  }
}

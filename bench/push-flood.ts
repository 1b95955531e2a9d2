/**
 * `npm run bench -- push-flood`: what one push connection sending a flood of `{"action":"sync"}`
 * frames costs another client (issue 37: 3,000 syncs took another client's GET /agents/{id} from
 * 22 ms to 7.6–15.6 s for 30 s). Another account's client reads its agent, one GET after another,
 * first with the service quiet (the baseline), then for PUSH_FLOOD_BENCH_SECONDS from the moment
 * the flood is sent; each phase's latencies are read against the quiet ones. The flooder's own
 * outcome is counted: the rate_limited frames it got and how its connection ended
 * (PUSH.messageLimits; docs/events.md, "Push").
 *
 * The local API (with the WebSocket stand-in) runs in this process, as under `npm start`, against a
 * DynamoDB Local of its own; the flood is sent from this process too (a few KB of frames).
 */
import { createUserWithKey } from '../lib/accounts/api-keys.ts';
import { BASE_PATHS, PUSH } from '../lib/core/settings.ts';
import { createLocalApi, listen } from '../local/gateway/api-gateway.ts';
import { UNLIMITED_KEY_LIMITS } from '../local/gateway/key-throttle.ts';
import { api, percentileOf } from './_api.ts';
import { withBenchStore } from './_store.ts';

const FRAMES = Number(process.env['PUSH_FLOOD_BENCH_FRAMES'] ?? 3000);
const FLOOD_SECONDS = Number(process.env['PUSH_FLOOD_BENCH_SECONDS'] ?? 10);
const QUIET_SAMPLES = 40;
const WARMUP = 10;
/** Between one answer and the next request: a client that reads often, not one that loads the service itself. */
const PAUSE_MS = 50;

/** GET /agents/{id}, one after another (PAUSE_MS apart), until `count` are done or `untilMs` (performance.now()) has passed. */
async function readAgent(base: string, key: string, agentId: string, count: number, untilMs = Infinity) {
  const latencies: number[] = [];
  while (latencies.length < count && performance.now() < untilMs) {
    const started = performance.now();
    await api(base, key, 'GET', `${BASE_PATHS.agents}/agents/${agentId}`);
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  }
  return latencies;
}

/** Opens the flooder's connection; once open, sends `frames` syncs at once. */
function flood(base: string, key: string, agentId: string, frames: number) {
  const url = `${base.replace('http', 'ws')}${PUSH.localPath}?agent_id=${agentId}`;
  const socket = new WebSocket(url, [PUSH.protocol, `key.${key}`]);
  const got: { error?: { code: string } }[] = [];
  socket.addEventListener('message', (m) => got.push(JSON.parse(String(m.data))));
  const closed = new Promise<{ code: number; at: number }>((resolve) =>
    socket.addEventListener('close', (e) => resolve({ code: e.code, at: performance.now() })),
  );
  const sent = new Promise<number>((resolve, reject) => {
    socket.addEventListener('open', () => {
      for (let i = 0; i < frames; i++) socket.send(JSON.stringify({ action: 'sync' }));
      resolve(performance.now());
    });
    socket.addEventListener('error', () => reject(new Error('the flooder could not connect')));
  });
  return { got, closed, sent, stop: () => socket.close(1000) };
}

const row = (label: string, values: number[], quiet: number[]) => {
  const [p50, p95, max] = [percentileOf(values, 50), percentileOf(values, 95), Math.max(...values)];
  const ratio = (x: number, q: number) => `×${(x / q).toFixed(2)}`;
  return `| ${label} | ${values.length} | ${p50.toFixed(1)} | ${p95.toFixed(1)} | ${max.toFixed(1)} | ${ratio(p50, percentileOf(quiet, 50))} | ${ratio(p95, percentileOf(quiet, 95))} |`;
};

export function run(): Promise<string> {
  return withBenchStore('push-flood', async () => {
    // The reader's pace is its own (PAUSE_MS), not the usage plan's to judge; the flood is WebSocket frames, which no key bucket counts.
    const local = await listen(createLocalApi(undefined, { keyLimits: UNLIMITED_KEY_LIMITS }), 0);
    process.env['PUSH_CONNECTIONS_ENDPOINT'] = local.url;
    try {
      const [flooder, other] = await Promise.all([
        createUserWithKey({ name: 'flooder' }),
        createUserWithKey({ name: 'other' }),
      ]);
      const create = (key: string) =>
        api<{ id: string }>(local.url, key, 'POST', `${BASE_PATHS.agents}/agents`, { name: 'bench' });
      const [floodAgent, otherAgent] = [await create(flooder.api_key), await create(other.api_key)];
      await readAgent(local.url, other.api_key, otherAgent.id, WARMUP);
      const quiet = await readAgent(local.url, other.api_key, otherAgent.id, QUIET_SAMPLES);

      const flooding = flood(local.url, flooder.api_key, floodAgent.id, FRAMES);
      const sentAt = await flooding.sent;
      const during = await readAgent(local.url, other.api_key, otherAgent.id, Infinity, sentAt + FLOOD_SECONDS * 1000);
      const ended = await Promise.race([flooding.closed, Promise.resolve(undefined)]);
      flooding.stop();
      const refused = flooding.got.filter((f) => f.error?.code === 'rate_limited').length;
      const { perConnection, windowMs, closeAfterRefused } = PUSH.messageLimits;
      return [
        `### Push: another client's latency while one connection floods syncs`,
        '',
        `DynamoDB Local (in memory), the local API with the WebSocket stand-in in one process, this machine. Another account's client reads its agent (GET /agents/{id}), one request ${PAUSE_MS} ms after the answer to the one before: ${QUIET_SAMPLES} with the service quiet (after ${WARMUP} untimed), then for ${FLOOD_SECONDS} s from the moment one connection sent ${FRAMES.toLocaleString('en-US')} \`{"action":"sync"}\` frames at once. Limits: ${perConnection} messages per connection per ${windowMs / 1000} s, closed at the ${closeAfterRefused}th refusal (\`PUSH.messageLimits\`).`,
        '',
        '| Phase | GETs | p50 ms | p95 ms | max ms | p50 against quiet | p95 against quiet |',
        '|---|---|---|---|---|---|---|',
        row('quiet (baseline)', quiet, quiet),
        row(`flood, ${FLOOD_SECONDS} s`, during, quiet),
        '',
        `The flooding connection got ${refused} rate_limited frames and ${
          ended
            ? `was closed with ${ended.code} ${(ended.at - sentAt).toFixed(0)} ms after its frames were sent`
            : `was still open after ${FLOOD_SECONDS} s`
        }.`,
      ].join('\n');
    } finally {
      await local.close();
    }
  });
}

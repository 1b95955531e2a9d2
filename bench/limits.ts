/**
 * What the abuse limits cost per request (docs/limits.md), each as a ratio to one consistent
 * GetItem measured in the same run against the same DynamoDB Local:
 * - a verify handshake's limiter (take the lease and count the start, then release it);
 * - an SSE stream's lease (take a free slot, then release it), and the refusal when all 5 are held;
 * - the local gateway's per-key token bucket, per request.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { newId } from '../lib/core/ids.ts';
import { MAX_STREAMS_PER_AGENT } from '../lib/core/settings.ts';
import { acquireStreamLease } from '../lib/limits/stream-leases.ts';
import { startHandshake } from '../lib/limits/verify-limit.ts';
import { db, tableName } from '../lib/store/client.ts';
import * as keys from '../lib/store/key-builders.ts';
import { createKeyThrottle } from '../local/gateway/key-throttle.ts';
import { percentile } from './_api.ts';
import { withBenchStore } from './_store.ts';

const SAMPLES = 200;
const WARMUP = 20;

async function timeEach(fn: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await fn(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    await fn(i);
    samples.push(performance.now() - started);
  }
  return samples.sort((a, b) => a - b);
}

export function run(): Promise<string> {
  return withBenchStore('limits', async () => {
    const agentId = newId('agt');
    await db().send(
      new PutCommand({ TableName: tableName(), Item: { ...keys.agent(agentId), entity: 'agent', id: agentId } }),
    );

    const baseline = await timeEach(() =>
      db().send(new GetCommand({ TableName: tableName(), Key: keys.agent(agentId), ConsistentRead: true })),
    );
    // A fresh agent per sample: its first verification (no window yet), the most writes the limiter makes.
    const verify = await timeEach(async () => (await startHandshake(newId('agt'))).release());
    const streamAgent = newId('agt');
    const stream = await timeEach(async () => (await acquireStreamLease(streamAgent)).release());
    const fullAgent = newId('agt');
    const held = await Promise.all(Array.from({ length: MAX_STREAMS_PER_AGENT }, () => acquireStreamLease(fullAgent)));
    const refused = await timeEach(() => acquireStreamLease(fullAgent).catch(() => undefined));
    await Promise.all(held.map((l) => l.release()));

    const throttle = createKeyThrottle({ ratePerSecond: 1e9, burst: 1e9, dailyQuota: Number.MAX_SAFE_INTEGER });
    const takes = 1_000_000;
    const started = performance.now();
    for (let i = 0; i < takes; i++) throttle.take(`key-${i % 1000}`);
    const takeMs = (performance.now() - started) / takes;

    const base50 = percentile(baseline, 50);
    const row = (what: string, writes: string, s: number[]) =>
      `| ${what} | ${writes} | ${percentile(s, 50).toFixed(2)} / ${percentile(s, 99).toFixed(2)} | ${(percentile(s, 50) / base50).toFixed(1)}× |`;
    return [
      '### Abuse limits: cost per request',
      '',
      `DynamoDB Local (in memory), one process, ${SAMPLES} sequential samples per row after ${WARMUP} warm-up runs; latency in ms (p50 / p99, nearest rank). The ratio is each row's p50 over the baseline's p50, measured in the same run.`,
      '',
      '| What | DynamoDB requests | Latency (p50 / p99) | p50 ratio |',
      '|---|---|---|---|',
      row('Baseline: one consistent GetItem', '1 read', baseline),
      row('Verify limiter: first handshake of an agent (take + release)', '3 conditional writes', verify),
      row('SSE stream lease: free slot (take + release)', '2 conditional writes', stream),
      row(
        `SSE stream lease refused: all ${MAX_STREAMS_PER_AGENT} slots held (429)`,
        `${MAX_STREAMS_PER_AGENT} failed conditional writes`,
        refused,
      ),
      `| Local gateway per-key token bucket, per request | none | ${(takeMs * 1000).toFixed(3)} µs | ${(takeMs / base50).toFixed(4)}× |`,
    ].join('\n');
  });
}

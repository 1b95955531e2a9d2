/**
 * Webhook delivery on the local runtime (`npm run bench -- delivery`):
 *  1. transition → receiver latency (p50/p99): POST /contracts/:id/fund through the local API
 *     Gateway until the receiver holds the signed event (stream poll, relay, fauxqs, delivery);
 *  2. DynamoDB and SQS calls per delivery, counted by middleware on the clients while the real
 *     relay and delivery handlers run;
 *  3. deliveries/s of the delivery handler against (a) the floor loop of the same calls (one
 *     BatchGetItem per batch, one conditional UpdateItem and one keep-alive POST per delivery) and
 *     (b) the previous design's calls (lease UpdateItem, two consistent GetItems, a POST on a new
 *     connection, settle UpdateItem), interleaved rounds in one run;
 *  4. client CPU per POST over https with and without connection reuse, against a TLS receiver in
 *     a child process (so its CPU is not counted).
 */

import { fork } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { InitializeHandler, InitializeHandlerArguments, MiddlewareStack } from '@smithy/types';
import type { DynamoDBRecord, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { startDnsServer } from '../fixtures/dns-server.ts';
import { TEST_TLS_CERT, TEST_TLS_KEY } from '../fixtures/tls-fixture.ts';
import { createUserWithKey } from '../lib/accounts/api-keys.ts';
import { nowIso } from '../lib/core/time.ts';
import { sqs } from '../lib/events/delivery/queue.ts';
import { deliveryItem, newDelivery } from '../lib/events/delivery/record.ts';
import type { ServiceEvent } from '../lib/events/feed/event.ts';
import { eventIdAt } from '../lib/events/feed/position.ts';
import { relayBatch } from '../lib/events/relay.ts';
import { closeAllPools } from '../lib/net/connection-pool.ts';
import { postJson } from '../lib/net/outbound.ts';
import { dnsResolver } from '../lib/net/resolver.ts';
import { workers } from '../lib/routes.ts';
import { batchWrite } from '../lib/store/batch.ts';
import { db, tableName } from '../lib/store/client.ts';
import * as keys from '../lib/store/key-builders.ts';
import { startEventPipeline } from '../local/emulators/event-pipeline.ts';
import { createDeliveryQueues, startLocalSqs } from '../local/emulators/sqs.ts';
import { createLocalApi, listen } from '../local/gateway/api-gateway.ts';
import { UNLIMITED_KEY_LIMITS } from '../local/gateway/key-throttle.ts';
import { loadHandler } from '../local/lambda/handlers.ts';
import { api, percentile, publishBenchTemplate } from './_api.ts';
import { keepAliveAgent, post } from './_http.ts';
import { withBenchStore } from './_store.ts';

const LATENCY_SAMPLES = 100;
const THROUGHPUT_DELIVERIES = 400;
const BATCH = 10;
/** Concurrent batches, like the event source's concurrent invocations. */
const CONCURRENT_BATCHES = 4;

export interface Receiver {
  url: string;
  onEvent: (body: string) => void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', onEvent: () => undefined, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    // A client that goes away mid-request is its own failure (named there); here it only ends this answer.
    req.on('error', () => res.destroy());
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: { type?: string; challenge?: string };
      try {
        json = JSON.parse(body) as typeof json;
      } catch {
        return void res.writeHead(400).end();
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      if (json.type === 'service.webhook.verify') return res.end(JSON.stringify({ challenge: json.challenge }));
      res.end('{"received":true}');
      receiver.onEvent(body);
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  receiver.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return receiver;
}

async function measureLatency(receiver: Receiver): Promise<{ p50: number; p99: number }> {
  const pipeline = await startEventPipeline({
    tableName: tableName(),
    dynamoEndpoint: process.env['DYNAMODB_ENDPOINT']!,
  });
  // What is measured here is the feed / delivery, not one key's usage plan (docs/limits.md).
  const gateway = await listen(createLocalApi(undefined, { keyLimits: UNLIMITED_KEY_LIMITS }), 0);
  try {
    const { api_key: key } = await createUserWithKey({ name: 'bench' });
    const base = gateway.url;
    const agent = await api<{ id: string }>(base, key, 'POST', '/api/v1/agents', { name: 'bench' });
    await api(base, key, 'PATCH', `/api/v1/agents/${agent.id}/webhook`, {
      webhook_url: receiver.url,
      events: ['contract.funded'],
    });
    await api(base, key, 'POST', `/api/v1/agents/${agent.id}/webhook/verify`);
    const template = await publishBenchTemplate(base, key);
    const samples: number[] = [];
    for (let i = 0; i < LATENCY_SAMPLES + 5; i++) {
      const contract = await api<{ id: string }>(base, key, 'POST', '/api/v1/contracts', {
        template_id: template.id,
        variables: {},
        amount_cents: 100,
        agent_id: agent.id,
      });
      const arrived = new Promise<number>(
        (resolve) => (receiver.onEvent = (body) => body.includes(contract.id) && resolve(performance.now())),
      );
      const started = performance.now();
      await api(base, key, 'POST', `/api/v1/contracts/${contract.id}/fund`);
      const ms = (await arrived) - started;
      if (i >= 5) samples.push(ms); // the first few warm up module loading and connections
    }
    samples.sort((a, b) => a - b);
    return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
  } finally {
    await gateway.close();
    await pipeline.stop();
  }
}

const ROUNDS = 5;
const COUNTED_DELIVERIES = 100;
const HTTPS_POSTS = 1000;
/** POSTs per variant and round before measuring: the JIT settles on this path only after a few hundred. */
const HTTPS_WARMUP = 300;
const DELIVER_MEMORY_GB = 0.5; // infra/stage-config.ts defaultMemoryMb

/** Counts every command sent through a client, by name (DynamoDB document client, SQS). */
function countCalls<Input extends object, Output extends object>(
  client: { middlewareStack: MiddlewareStack<Input, Output> },
  name: string,
): Map<string, number> {
  const counts = new Map<string, number>();
  client.middlewareStack.add(
    (next: InitializeHandler<Input, Output>, context: { commandName?: string }) =>
      async (args: InitializeHandlerArguments<Input>) => {
        counts.set(context.commandName ?? '?', (counts.get(context.commandName ?? '?') ?? 0) + 1);
        return next(args);
      },
    { step: 'initialize', name },
  );
  return counts;
}

/** An enabled agent for the receiver. */
export async function benchAgent(receiverUrl: string): Promise<string> {
  const agentId = `agt_BENCH${String(Date.now()).padStart(21, '0')}`;
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        PK: `AGENT#${agentId}`,
        SK: 'META',
        entity: 'agent',
        id: agentId,
        owner_id: 'bench',
        name: 'bench',
        webhook_url: receiverUrl,
        events: ['contract.funded'],
        webhook_status: 'ENABLED',
        webhook_secret: `whsec_${'b'.repeat(43)}`,
        config_version: 1,
        created_at: nowIso(),
        updated_at: nowIso(),
      },
    }),
  );
  await new Promise((r) => setTimeout(r, 2)); // distinct agent ids
  return agentId;
}

export const eventsOf = (agentId: string, count: number, from = 1): ServiceEvent[] =>
  Array.from({ length: count }, (_, i) => ({
    id: eventIdAt(agentId, from + i),
    type: 'contract.funded',
    schema_version: 1,
    created_at: nowIso(),
    agent_id: agentId,
    data: { contract_id: `ctr_BENCH${i}`, status: 'FUNDED', amount_cents: 100 },
  }));

const sqsRecord = (i: number, body: unknown): SQSEvent['Records'][number] => ({
  messageId: `bench-${i}`,
  receiptHandle: `bench-${i}`,
  body: JSON.stringify(body),
  attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: String(Date.now()),
    SenderId: 'bench',
    ApproximateFirstReceiveTimestamp: String(Date.now()),
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:bench',
  awsRegion: 'us-east-1',
});

/** Pending delivery records (carrying their events) and the event rows, written in bulk; the SQS records naming them. */
async function prepareDeliveries(receiverUrl: string, count: number): Promise<SQSEvent['Records']> {
  const agentId = await benchAgent(receiverUrl);
  const events = eventsOf(agentId, count);
  await batchWrite(
    events.flatMap((event) => [
      { put: { ...keys.event(agentId, event.id), entity: 'event', ...event, deliver: true } },
      { put: deliveryItem(newDelivery(event)) },
    ]),
  );
  return events.map((event, i) =>
    sqsRecord(i, { agent_id: agentId, delivery_id: newDelivery(event).id, event_id: event.id }),
  );
}

/** Runs `work` over `items` in chunks, `parallel` chunks at a time; returns items per second and ms per chunk. */
async function perSecond<T>(
  items: T[],
  chunk: number,
  parallel: number,
  work: (chunk: T[]) => Promise<void>,
): Promise<{ perSecond: number; msPerChunk: number }> {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += chunk) chunks.push(items.slice(i, i + chunk));
  const total = chunks.length;
  let busy = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let next = chunks.shift(); next; next = chunks.shift()) {
        const t = performance.now();
        await work(next);
        busy += performance.now() - t;
      }
    }),
  );
  return { perSecond: items.length / ((performance.now() - started) / 1000), msPerChunk: busy / total };
}

const keepAlive = keepAliveAgent();

const barePost = (what: string, url: string, body: string, reuse: boolean): Promise<void> =>
  post(what, url, body, reuse ? keepAlive : false);

/** The floor: exactly the calls the new handler makes, and nothing else. */
async function floorBatch(batch: SQSEvent['Records'], url: string): Promise<void> {
  const messages = batch.map((r) => JSON.parse(r.body) as { agent_id: string; delivery_id: string });
  await db().send(
    new BatchGetCommand({
      RequestItems: {
        [tableName()]: {
          Keys: [keys.agent(messages[0]!.agent_id), ...messages.map((m) => keys.delivery(m.agent_id, m.delivery_id))],
          ConsistentRead: true,
        },
      },
    }),
  );
  await Promise.all(
    messages.map(async (m) => {
      await barePost(`floor loop, delivery ${m.delivery_id}`, url, JSON.stringify(m).padEnd(220, ' '), true);
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.delivery(m.agent_id, m.delivery_id),
          ConditionExpression: 'attempts = :seen',
          UpdateExpression: 'SET attempts = :n, #status = :s, dlvStatus = :i, attempt_log.#k = :e',
          ExpressionAttributeNames: { '#status': 'status', '#k': 'a000001' },
          ExpressionAttributeValues: {
            ':seen': 0,
            ':n': 1,
            ':s': 'succeeded',
            ':i': `AGENT#${m.agent_id}#succeeded`,
            ':e': {
              attempt: 1,
              started_at: nowIso(),
              duration_ms: 1,
              status_code: 200,
              error: null,
              response_body: '{"received":true}',
            },
          },
        }),
      );
    }),
  );
}

/** The previous design's calls per delivery: lease, two consistent reads, POST on a new connection, settle. */
async function previousDesignBatch(batch: SQSEvent['Records'], url: string): Promise<void> {
  await Promise.all(
    batch.map(async (r) => {
      const m = JSON.parse(r.body) as { agent_id: string; delivery_id: string; event_id: string };
      const key = keys.delivery(m.agent_id, m.delivery_id);
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          ConditionExpression: '#status = :pending AND attribute_not_exists(lease_until)',
          UpdateExpression: 'SET lease_until = :until, lease_token = :token, owner_message = :mid',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':pending': 'pending',
            ':until': Date.now() + 20_000,
            ':token': r.messageId,
            ':mid': r.messageId,
          },
        }),
      );
      await Promise.all([
        db().send(new GetCommand({ TableName: tableName(), Key: keys.agent(m.agent_id), ConsistentRead: true })),
        db().send(
          new GetCommand({ TableName: tableName(), Key: keys.event(m.agent_id, m.event_id), ConsistentRead: true }),
        ),
      ]);
      await barePost(`previous design, delivery ${m.delivery_id}`, url, r.body.padEnd(220, ' '), false);
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          ConditionExpression: 'lease_token = :token',
          UpdateExpression: 'SET #status = :s, attempts = :n REMOVE lease_until, lease_token',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':token': r.messageId, ':s': 'succeeded', ':n': 1 },
        }),
      );
    }),
  );
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Throughput {
  handler: number;
  floor: number;
  previous: number;
  handlerMsPerBatch: number;
}

async function measureThroughput(receiver: Receiver): Promise<Throughput> {
  receiver.onEvent = () => undefined;
  const deliver = await loadHandler<(e: SQSEvent) => Promise<SQSBatchResponse>>(workers.deliver);
  const warm = await prepareDeliveries(receiver.url, 50);
  await perSecond(warm, BATCH, CONCURRENT_BATCHES, async (records) => void (await deliver({ Records: records })));
  const runs = { handler: [] as number[], floor: [] as number[], previous: [] as number[], ms: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const forHandler = await prepareDeliveries(receiver.url, THROUGHPUT_DELIVERIES);
    const forFloor = await prepareDeliveries(receiver.url, THROUGHPUT_DELIVERIES);
    const forPrevious = await prepareDeliveries(receiver.url, THROUGHPUT_DELIVERIES);
    const variants: Array<() => Promise<void>> = [
      async () => {
        const handler = await perSecond(forHandler, BATCH, CONCURRENT_BATCHES, async (batch) => {
          const result = await deliver({ Records: batch });
          if (result.batchItemFailures.length) throw new Error('a delivery failed during the benchmark');
        });
        runs.handler.push(handler.perSecond);
        runs.ms.push(handler.msPerChunk);
      },
      async () =>
        void runs.floor.push(
          (await perSecond(forFloor, BATCH, CONCURRENT_BATCHES, (batch) => floorBatch(batch, receiver.url))).perSecond,
        ),
      async () =>
        void runs.previous.push(
          (await perSecond(forPrevious, BATCH, CONCURRENT_BATCHES, (batch) => previousDesignBatch(batch, receiver.url)))
            .perSecond,
        ),
    ];
    // Each round starts with another variant, so none always runs on the freshest store.
    for (let i = 0; i < variants.length; i++) await variants[(i + round) % variants.length]!();
  }
  return {
    handler: median(runs.handler),
    floor: median(runs.floor),
    previous: median(runs.previous),
    handlerMsPerBatch: median(runs.ms),
  };
}

interface CallCounts {
  /** Per delivery, by command. */
  deliver: Record<string, number>;
  /** Per relayed event, by command (DynamoDB and SQS). */
  relay: Record<string, number>;
  /** Stored size of a succeeded delivery record (bytes, DynamoDB's reckoning: names + values). */
  recordBytes: number;
}

/** DynamoDB's item size: attribute names plus values (close enough for write units). */
function itemBytes(item: Record<string, unknown>): number {
  const size = (v: unknown): number => {
    if (v === null || v === undefined || typeof v === 'boolean') return 1;
    if (typeof v === 'number') return 8;
    if (typeof v === 'string') return Buffer.byteLength(v);
    if (Array.isArray(v)) return 3 + v.reduce((n: number, x) => n + size(x) + 1, 0);
    return (
      3 + Object.entries(v as Record<string, unknown>).reduce((n, [k, x]) => n + Buffer.byteLength(k) + size(x) + 1, 0)
    );
  };
  return Object.entries(item).reduce((n, [k, v]) => n + Buffer.byteLength(k) + size(v), 0);
}

async function countDeliveryCalls(receiver: Receiver): Promise<CallCounts> {
  const dynamo = countCalls(db(), 'benchDynamoCounter');
  const perUnit = (n: number) =>
    Object.fromEntries(
      [...dynamo, ...[...queue].map(([k, v]) => [`SQS ${k}`, v] as const)].map(([k, v]) => [k, v / n]),
    );

  // The relay: a stream batch of 100 new event rows for agents with enabled webhooks (10 agents).
  const local = await startLocalSqs({});
  const queues = await createDeliveryQueues(local.client, tableName(), {
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 5,
  });
  process.env['SQS_ENDPOINT'] = local.endpoint;
  process.env['DELIVERY_QUEUE_URL'] = queues.queueUrl;
  const queue = countCalls(sqs(), 'benchSqsCounter');
  const streamRecords: DynamoDBRecord[] = [];
  for (let a = 0; a < 10; a++) {
    const agentId = await benchAgent(receiver.url);
    for (const event of eventsOf(agentId, COUNTED_DELIVERIES / 10)) {
      const image = { ...keys.event(agentId, event.id), entity: 'event', ...event, deliver: true };
      streamRecords.push({
        eventName: 'INSERT',
        dynamodb: { NewImage: marshall(image) as Record<string, AttributeValue> as never, SequenceNumber: event.id },
      });
    }
  }
  dynamo.clear();
  queue.clear();
  if ((await relayBatch(streamRecords)).length) throw new Error('relay failed during the benchmark');
  const relay = perUnit(streamRecords.length);

  // The delivery handler: those 100 deliveries in batches of 10 (one agent per batch).
  const deliver = await loadHandler<(e: SQSEvent) => Promise<SQSBatchResponse>>(workers.deliver);
  const records = streamRecords.map((r, i) => {
    const image = r.dynamodb!.NewImage as unknown as Record<string, { S: string }>;
    return sqsRecord(i, {
      agent_id: image['agent_id']!.S,
      delivery_id: `dlv_${image['id']!.S.slice(4)}`,
      event_id: image['id']!.S,
    });
  });
  dynamo.clear();
  queue.clear();
  for (let i = 0; i < records.length; i += BATCH) {
    const result = await deliver({ Records: records.slice(i, i + BATCH) });
    if (result.batchItemFailures.length) throw new Error('a delivery failed during the benchmark');
  }
  const deliverCounts = perUnit(records.length);
  const first = JSON.parse(records[0]!.body) as { agent_id: string; delivery_id: string };
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.delivery(first.agent_id, first.delivery_id) }),
  );
  delete process.env['SQS_ENDPOINT'];
  await local.stop();
  return { deliver: deliverCounts, relay, recordBytes: itemBytes(Item!) };
}

/** A TLS receiver in a child process, so the client's CPU is measured alone. */
async function startTlsReceiver(): Promise<{ port: number; stop(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-tls-'));
  const script = join(dir, 'receiver.mjs');
  writeFileSync(
    script,
    `import https from 'node:https';
const server = https.createServer({ key: process.env.KEY, cert: process.env.CERT }, (req, res) => { req.resume(); req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}')); });
server.keepAliveTimeout = 10000;
server.listen(0, '127.0.0.1', () => process.send(server.address().port));`,
  );
  const child = fork(script, [], {
    env: { ...process.env, KEY: TEST_TLS_KEY, CERT: TEST_TLS_CERT },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(Number(m))));
  return { port, stop: () => child.kill() };
}

/**
 * Client CPU (user + system) per POST, sequential: through postJson on a new connection each, pooled
 * to `localhost` (getaddrinfo on every POST: no TTL to honour), pooled to a name served by a local DNS
 * server with TTL 60 (the resolver's cached answer, as in AWS), and a bare keep-alive request
 * (no URL policy, no lookup) for scale.
 */
async function httpsCpuPerPost(): Promise<{ reuse: number; reuseHosts: number; fresh: number; bare: number }> {
  const receiver = await startTlsReceiver();
  const dns = await startDnsServer();
  try {
    dns.set('hooks.example.com', { addresses: ['127.0.0.1'], ttl: 60 });
    const localhostUrl = `https://localhost:${receiver.port}/hooks`;
    const namedUrl = `https://hooks.example.com:${receiver.port}/hooks`;
    const resolver = dnsResolver({ servers: [dns.server] });
    const viaPostJson =
      (url: string, options: { reuseConnections: boolean; resolver?: typeof resolver }) => async (i: number) => {
        const result = await postJson(
          { url, body: `{"n":${i},"pad":"${'x'.repeat(200)}"}`, headers: {} },
          { developmentMode: true, ca: TEST_TLS_CERT, ...options },
        );
        if (result.kind !== 'response' || result.status !== 200)
          throw new Error(`https POST failed: ${JSON.stringify(result)}`);
      };
    const agent = keepAliveAgent({ ca: TEST_TLS_CERT }, true);
    const bare = (i: number) =>
      post(`bare keep-alive https POST ${i}`, localhostUrl, `{"n":${i},"pad":"${'x'.repeat(200)}"}`, agent);
    const measure = async (post: (i: number) => Promise<void>) => {
      for (let i = 0; i < HTTPS_WARMUP; i++) await post(i); // JIT (a delivering instance is warm) and the first handshake
      const before = process.cpuUsage();
      for (let i = 0; i < HTTPS_POSTS; i++) await post(i);
      const used = process.cpuUsage(before);
      return (used.user + used.system) / 1000 / HTTPS_POSTS;
    };
    const variants = {
      fresh: viaPostJson(namedUrl, { reuseConnections: false, resolver }),
      reuse: viaPostJson(namedUrl, { reuseConnections: true, resolver }),
      reuseHosts: viaPostJson(localhostUrl, { reuseConnections: true }),
      bare,
    };
    const runs = { fresh: [] as number[], reuse: [] as number[], reuseHosts: [] as number[], bare: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of Object.keys(variants) as Array<keyof typeof variants>)
        runs[name].push(await measure(variants[name]));
    }
    agent.destroy();
    return {
      reuse: median(runs.reuse),
      reuseHosts: median(runs.reuseHosts),
      fresh: median(runs.fresh),
      bare: median(runs.bare),
    };
  } finally {
    closeAllPools();
    receiver.stop();
    await dns.stop();
  }
}

/** On-demand list prices, us-east-1, as published since the DynamoDB price cut of 2024-11-01 (not re-checked online). */
const PRICES = {
  writeRequestUnit: 0.625 / 1e6,
  readRequestUnit: 0.125 / 1e6,
  sqsRequest: 0.4 / 1e6,
  lambdaRequest: 0.2 / 1e6,
  lambdaArmGbSecond: 0.0000133334,
};

export function run(): Promise<string> {
  process.env['DEVELOPMENT_MODE'] = 'true';
  process.env['LOG_LEVEL'] ??= 'silent';
  return withBenchStore('delivery', measure);
}

async function measure(): Promise<string> {
  const receiver = await startReceiver();
  try {
    const latency = await measureLatency(receiver);
    const calls = await countDeliveryCalls(receiver);
    const throughput = await measureThroughput(receiver);
    const cpu = await httpsCpuPerPost();
    const f = (n: number) => n.toFixed(0);
    const callList = (counts: Record<string, number>) =>
      Object.entries(counts)
        .sort()
        .map(([k, v]) => `${k} ${Number(v.toFixed(2))}`)
        .join(', ');
    return [
      '### Webhook delivery (local runtime)',
      '',
      `Transition → receiver: POST …/fund through the local API Gateway until the receiver has the signed event (${LATENCY_SAMPLES} sequential samples; DynamoDB Local stream poll every 100 ms, relay, fauxqs, delivery handler).`,
      '',
      '| Measure | Value |',
      '|---|---|',
      `| transition → receiver latency p50 | ${f(latency.p50)} ms |`,
      `| transition → receiver latency p99 | ${f(latency.p99)} ms |`,
      `| calls per delivery, delivery handler (${COUNTED_DELIVERIES} deliveries, batches of ${BATCH}, counted) | ${callList(calls.deliver)} |`,
      `| calls per event, relay (a stream batch of ${COUNTED_DELIVERIES} events for 10 agents, counted) | ${callList(calls.relay)} |`,
      `| stored size of a succeeded delivery record (event and one attempt inside) | ${calls.recordBytes} bytes |`,
      `| delivery handler (${THROUGHPUT_DELIVERIES} deliveries, batches of ${BATCH}, ${CONCURRENT_BATCHES} batches at once; median of ${ROUNDS} interleaved rounds) | ${f(throughput.handler)} deliveries/s, ${throughput.handlerMsPerBatch.toFixed(0)} ms per batch |`,
      `| floor loop of the same calls (1 BatchGetItem per batch, 1 conditional UpdateItem + 1 keep-alive POST per delivery) | ${f(throughput.floor)} deliveries/s |`,
      `| previous design's calls (lease UpdateItem, 2 consistent GetItems, POST on a new connection, settle UpdateItem) | ${f(throughput.previous)} deliveries/s |`,
      `| handler / its floor | ${(throughput.handler / throughput.floor).toFixed(2)} |`,
      `| handler / previous design | ${(throughput.handler / throughput.previous).toFixed(2)} |`,
      `| client CPU per https POST, new connection each (${HTTPS_POSTS} sequential POSTs, receiver in another process) | ${cpu.fresh.toFixed(2)} ms |`,
      `| client CPU per https POST, pooled connection (name from DNS, answer kept for its TTL) | ${cpu.reuse.toFixed(2)} ms |`,
      `| pooled / new connection | ${(cpu.reuse / cpu.fresh).toFixed(2)} |`,
      `| client CPU per https POST, pooled connection to \`localhost\` (getaddrinfo on every POST) | ${cpu.reuseHosts.toFixed(2)} ms |`,
      `| a bare keep-alive https request (no URL policy, no DNS lookup), for scale | ${cpu.bare.toFixed(2)} ms |`,
      '',
      'DynamoDB Local serialises writes, so every column here is bound by it; the ratios compare designs on the same store in the same run. Prices used for the cost per million deliveries (docs/cost.md): ' +
        `DynamoDB on-demand $${(PRICES.writeRequestUnit * 1e6).toFixed(3)}/M write units, $${(PRICES.readRequestUnit * 1e6).toFixed(3)}/M read units; SQS $${(PRICES.sqsRequest * 1e6).toFixed(2)}/M requests; Lambda $${(PRICES.lambdaRequest * 1e6).toFixed(2)}/M requests, $${PRICES.lambdaArmGbSecond}/GB-s (arm64); measured batch ${throughput.handlerMsPerBatch.toFixed(0)} ms at ${DELIVER_MEMORY_GB * 1024} MB = ${(((throughput.handlerMsPerBatch / 1000) * DELIVER_MEMORY_GB) / BATCH).toFixed(5)} GB-s per delivery.`,
    ].join('\n');
  } finally {
    await receiver.close();
  }
}

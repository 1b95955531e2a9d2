/**
 * The cost model of docs/cost.md, computed from the service's own settings (lib/core/settings.ts),
 * its sizing (infra/sizing.ts, infra/stage-config.ts), its tracing choice
 * (infra/tracing-sampling.ts, infra/lambda-function.ts) and list prices (infra/prices.ts).
 * `npm run bench -- cost` writes the tables into docs/cost.md; test/cost-doc.test.ts fails when
 * the file is not what this computes.
 *
 * What cannot be read from the code is in ASSUMED below, each with where it comes from.
 */

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tracing } from 'aws-cdk-lib/aws-lambda';
import { tracingOf } from '../infra/lambda-function.ts';
import { PRICES } from '../infra/prices.ts';
import { FUNCTION_MEMORY_MB } from '../infra/sizing.ts';
import { STAGES } from '../infra/stage-config.ts';
import { TRACING_FIXED_RATE } from '../infra/tracing-sampling.ts';
import { DELIVERY, PUSH, ROUTE_TIMEOUTS, STREAM, STREAM_LEASE } from '../lib/core/settings.ts';
import { MAX_SEND_DELAY_SECONDS } from '../lib/events/delivery/queue.ts';
import { SSE_ACCESS_CHECK_MS } from '../lib/events/feed/sse.ts';
import { log, withLogContext } from '../lib/observability/log.ts';
import { flushMetrics, recordDeliveryAttempt } from '../lib/observability/metrics.ts';
import { type Route, routes } from '../lib/routes.ts';

/** Inputs the code does not hold: measured on this machine by the benchmarks, or stated. */
export const ASSUMED = {
  /** The receivers: p50 50 ms, p99 2 s, 1 % at the 10 s deadline (issue 20). Log-normal through p50 and p99, capped at 2 s, for the 99 % that answer. */
  latency: { p50Ms: 50, p99Ms: 2000, timeoutShare: 0.01, deadlineMs: 10_000 },
  /** Client CPU of one https POST on a new connection (TLS handshake included): `npm run bench -- delivery`. Every POST is counted as a new connection. */
  postCpuMs: 3.27,
  /** The handler's own CPU per delivery besides the POST (signature, JSON, the SDK's signing and (de)serialising of one UpdateItem, one log line): stated, not measured. */
  handlerCpuMsPerDelivery: 1.5,
  /** One DynamoDB or SQS call inside a region, wall time: stated (single-digit ms is AWS's published figure for DynamoDB). */
  awsCallMs: 10,
  /** Lambda gives a function one vCPU at 1,769 MB and a share in proportion below. */
  fullVcpuMb: 1769,
  /** Size of a delivery record: 853 bytes with one attempt (README benchmarks): 1 write unit; from the second attempt on it is counted as 2. */
  recordWriteUnits: { firstAttempt: 1, laterAttempt: 2 },
  /** Agents per batch: the relay's stream batch of 100 events names 10 agents; a delivery batch names 1 (README benchmarks' scenario). */
  agentsPerStreamBatch: 10,
  agentsPerDeliveryBatch: 1,
  /** Deliveries an endpoint gets while its proof lasts half of DELIVERY.provenSeconds (3.5 days): stated, at least. */
  deliveriesPerProof: 1000,
  /** Bytes Lambda's JSON platform records take per invocation (platform.start + platform.report, with CloudWatch's 26 bytes per event). */
  platformLogBytesPerInvocation: 2 * 26 + 120 + 420,
  /** Stored logs compress about 6×; kept for the prod stage's retention (3 months). */
  logCompression: 6,
  logMonthsKept: 3,
  /** A route's duration: its DynamoDB calls (awsCallMs each, one after another) and 5 ms of CPU at 512 MB: stated. */
  routeCpuMs: 5,
  /** API Gateway's access-log line (jsonWithStandardFields) with CloudWatch's 26 bytes: about 400 bytes. */
  accessLogBytes: 400,
} as const;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MIB_PER_GB = 1024;
const round = (n: number, digits = 2) => n.toFixed(digits);
const usd = (n: number) => `$${n < 0.01 && n > 0 ? n.toFixed(4) : n.toFixed(2)}`;

// ---- The receivers' latency mix --------------------------------------------------------------

/** Standard normal CDF (Abramowitz–Stegun 7.1.26, error < 1.5e-7). */
function normalCdf(z: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(z)) / Math.SQRT2);
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-(z * z) / 2);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** P(latency ≤ ms) for the mix. */
export function latencyCdf(ms: number): number {
  const { p50Ms, p99Ms, timeoutShare, deadlineMs } = ASSUMED.latency;
  if (ms >= deadlineMs) return 1;
  if (ms >= p99Ms) return 1 - timeoutShare;
  const sigma = Math.log(p99Ms / p50Ms) / 2.3263478740408408;
  return (1 - timeoutShare) * normalCdf(Math.log(Math.max(ms, 1e-9) / p50Ms) / sigma);
}

/** Expected slowest of `n` POSTs made at once (s): ∫ (1 − F(t)ⁿ) dt, in 1 ms steps. */
export function expectedSlowestSeconds(n: number): number {
  let sum = 0;
  for (let ms = 0; ms < ASSUMED.latency.deadlineMs; ms++) sum += 1 - latencyCdf(ms + 0.5) ** n;
  return sum / 1000;
}

// ---- Deliveries ------------------------------------------------------------------------------

/**
 * The `DeliveriesByStatus` index (`?status=`): `full` = every record, its entry moved on every
 * status change (before issue 40); `attempted` = an entry from the first attempt on; `failures` =
 * an entry only while an attempt has failed (a success never writes one: as built,
 * lib/events/delivery/record.ts); `none`.
 */
export type IndexDesign = 'full' | 'attempted' | 'failures' | 'none';

const INDEX_NAMES: Record<IndexDesign, string> = {
  full: 'full index',
  attempted: 'index entry from the first attempt',
  failures: 'failures-only index',
  none: 'no status index',
};

export interface DeliverySizing {
  memoryMb: number;
  batchSize: number;
  /** POSTs of a batch in flight at once: the batch (lib/events/delivery/deliver-batch.ts), or 1 (one after another). */
  concurrent: boolean;
  index: IndexDesign;
  /** POSTs in flight to an endpoint in doubt (lib/events/delivery/endpoint-slots.ts), or undefined: no cap (before issue 40). */
  inDoubtCap: number | undefined;
}

export interface Line {
  item: string;
  quantity: string;
  usd: number;
}

/** What `run` writes to stdout, with the environment set as given for its duration. */
function written(env: Record<string, string>, run: () => void): number {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const write = process.stdout.write;
  let bytes = 0;
  process.stdout.write = ((chunk: string) => {
    bytes += Buffer.byteLength(chunk);
    return true;
  }) as typeof process.stdout.write;
  Object.assign(process.env, env);
  try {
    run();
  } finally {
    process.stdout.write = write;
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
  return bytes;
}

/**
 * The bytes the delivery function logs, from the real log and metrics code: one 'delivery attempt'
 * line (lib/events/delivery/deliver-batch.ts's fields, ids of their real length), and the EMF document of a
 * batch of attempts (lib/observability/metrics.ts), plus CloudWatch's 26 bytes per event.
 */
export function deliveryLogBytes(batchSize: number): { perAttempt: number; perBatch: number } {
  const env = {
    LOG_LEVEL: 'info',
    AWS_LAMBDA_FUNCTION_NAME: 'TemplateMarketplace-prod-DeliverFunction0123ABCD',
    _X_AMZN_TRACE_ID: '',
  };
  const perAttempt = written(env, () => {
    const context = {
      awsRequestId: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
      functionName: env.AWS_LAMBDA_FUNCTION_NAME,
      memoryLimitInMB: '128',
    };
    withLogContext(context, undefined, () =>
      log.info('delivery attempt', {
        deliveryId: 'dlv_01JD8X2Q4R5S6T7V8W9XYZABCD',
        eventId: 'evt_01JD8X2Q4R5S6T7V8W9XYZABCD',
        agentId: 'agt_01JD8X2Q4R5S6T7V8W9XYZABCD',
        attempt: 1,
        statusCode: 200,
        ms: 48,
        outcome: 'succeeded',
      }),
    );
  });
  const perBatch = written(env, () => {
    for (let i = 0; i < batchSize; i++) recordDeliveryAttempt({ ok: true, latencyMs: 40 + i });
    flushMetrics();
  });
  return { perAttempt: perAttempt + 26, perBatch: perBatch + 26 };
}

/** Per million deliveries that all end in success, with the latency mix. */
export function deliveryCost(s: DeliverySizing): { lines: Line[]; total: number; batchSeconds: number } {
  const million = 1e6;
  const retryShare = ASSUMED.latency.timeoutShare;
  // A timed-out attempt is retried later and meets the same mix: attempts per delivery = 1 / (1 − p).
  const attempts = 1 / (1 - retryShare);
  const batches = (attempts * million) / s.batchSize;

  // DynamoDB writes: the relay's put of the record, one write per attempt, and the status index.
  const recordWrites =
    1 + ASSUMED.recordWriteUnits.firstAttempt + (attempts - 1) * ASSUMED.recordWriteUnits.laterAttempt;
  // Index entries are keys only (< 1 KB, 1 unit); a status change moves an entry: delete + put.
  // A retried delivery's status stays pending until its last attempt; `failures` puts an entry at
  // the failed attempt and deletes it at the success.
  const indexWrites = { full: 1 + 2, attempted: 1 + (attempts - 1) * 2, failures: (attempts - 1) * 2, none: 0 }[
    s.index
  ];
  // The cap on endpoints in doubt (lib/events/delivery/endpoint-slots.ts): a batch with an attempt
  // slower than slowPostMs (a timeout, or the mix's 2 s tail) puts its endpoint in doubt (1 write);
  // the batches after it until one whose attempts are all in time (1 / P(all in time) of them) each
  // claim a lease per slot and give them back in one write, their POSTs in `cap` lanes; that last
  // one proves it again (1 write). And the proof's refresh, one write per endpoint every 3.5 days.
  const pSlow = 1 - latencyCdf(DELIVERY.slowPostMs - 0.001);
  const pAllInTime = (1 - pSlow) ** s.batchSize;
  const doubting = s.inDoubtCap ? batches * (1 - pAllInTime) : 0;
  const inDoubt = doubting / pAllInTime;
  const capWrites = s.inDoubtCap
    ? (2 * doubting + inDoubt * (Math.min(s.batchSize, s.inDoubtCap) + 1)) / million + 1 / ASSUMED.deliveriesPerProof
    : 0;
  const writes = (recordWrites + indexWrites + capWrites) * million;
  // Reads (consistent, ≤ 4 KB: 1 unit each): the relay's look for the record and its agents,
  // the delivery batch's record and agent per attempt.
  const reads =
    (1 +
      ASSUMED.agentsPerStreamBatch / STREAM.batchSize +
      attempts * (1 + ASSUMED.agentsPerDeliveryBatch / s.batchSize)) *
    million;
  // SQS: the relay's SendMessageBatch (10 a call), Lambda's receive and delete per batch, and per
  // timed-out attempt the delayed copy of its retry (a SendMessage: the first retry waits 30 s, one
  // delay, no hop; lib/events/delivery/queue.ts).
  const sqs = million / 10 + 2 * batches + (attempts - 1) * million;

  // Lambda, delivery: the batch read, the slowest POST (all at once) or every POST in turn, its
  // attempt write, and the CPU at the memory's share of a vCPU.
  const cpuShare = Math.min(1, s.memoryMb / ASSUMED.fullVcpuMb);
  const cpuSeconds = (s.batchSize * (ASSUMED.postCpuMs + ASSUMED.handlerCpuMsPerDelivery)) / 1000;
  const waitSeconds = s.concurrent ? expectedSlowestSeconds(s.batchSize) : s.batchSize * expectedSlowestSeconds(1);
  const batchSeconds = (2 * ASSUMED.awsCallMs) / 1000 + waitSeconds + cpuSeconds / cpuShare;
  // A batch in doubt: its POSTs `cap` at a time, each round waiting for its slowest (an upper bound
  // on lanes that go on independently), and its lease writes.
  const lanesSeconds = s.inDoubtCap
    ? Math.ceil(s.batchSize / s.inDoubtCap) * expectedSlowestSeconds(Math.min(s.batchSize, s.inDoubtCap))
    : 0;
  const inDoubtSeconds = batchSeconds - waitSeconds + lanesSeconds + (2 * ASSUMED.awsCallMs) / 1000;
  const deliverGbSeconds = ((batches - inDoubt) * batchSeconds + inDoubt * inDoubtSeconds) * (s.memoryMb / MIB_PER_GB);
  // Lambda, relay: per stream batch three calls (BatchGetItem, BatchWriteItem, SendMessageBatch) at the default memory.
  const relayMb = FUNCTION_MEMORY_MB['relay'] ?? STAGES['prod']!.defaultMemoryMb;
  const relayBatches = million / STREAM.batchSize;
  const relayGbSeconds =
    relayBatches * ((3 * ASSUMED.awsCallMs + STREAM.batchSize * 0.2) / 1000) * (relayMb / MIB_PER_GB);
  const invocations = batches + relayBatches;

  // Logs: one line per attempt, one EMF document and the platform records per invocation.
  const logged = deliveryLogBytes(s.batchSize);
  const logBytes =
    attempts * million * logged.perAttempt +
    batches * logged.perBatch +
    invocations * ASSUMED.platformLogBytesPerInvocation;
  const logGb = logBytes / 1e9;
  const logUsd =
    logGb * PRICES.logsIngestedGb + (logGb / ASSUMED.logCompression) * ASSUMED.logMonthsKept * PRICES.logsStoredGbMonth;

  // X-Ray: the relay (stream) and delivery (queue) functions pass a caller's decision through and
  // the relay never has one: no traces (infra/lambda-function.ts).
  const traced =
    tracingOf('deliver') === Tracing.PASS_THROUGH && tracingOf('relay') === Tracing.PASS_THROUGH
      ? 0
      : batches + relayBatches;

  const lines: Line[] = [
    {
      item: 'DynamoDB write units',
      quantity: `${round(writes / million)} M (record ${round(recordWrites)}, index ${round(indexWrites)}${s.inDoubtCap ? `, cap ${round(capWrites, 3)}` : ''})`,
      usd: writes * PRICES.dynamoWriteUnit,
    },
    { item: 'DynamoDB read units', quantity: `${round(reads / million)} M`, usd: reads * PRICES.dynamoReadUnit },
    { item: 'SQS requests', quantity: `${round(sqs / million)} M`, usd: sqs * PRICES.sqsRequest },
    {
      item: 'Lambda requests',
      quantity: `${round(invocations / million, 3)} M`,
      usd: invocations * PRICES.lambdaRequest,
    },
    {
      item: `Lambda GB-s, delivery (${s.memoryMb} MB, ${round(batchSeconds, 3)} s a batch)`,
      quantity: `${Math.round(deliverGbSeconds).toLocaleString('en-US')}`,
      usd: deliverGbSeconds * PRICES.lambdaArmGbSecond,
    },
    {
      item: `Lambda GB-s, relay (${relayMb} MB)`,
      quantity: `${Math.round(relayGbSeconds).toLocaleString('en-US')}`,
      usd: relayGbSeconds * PRICES.lambdaArmGbSecond,
    },
    { item: 'CloudWatch Logs (ingested, stored 3 months)', quantity: `${round(logGb, 2)} GB`, usd: logUsd },
    {
      item: 'X-Ray traces',
      quantity: `${Math.round(traced).toLocaleString('en-US')}`,
      usd: traced * (PRICES.xrayTraceRecorded + PRICES.xrayTraceRetrieved),
    },
  ];
  return { lines, total: lines.reduce((t, l) => t + l.usd, 0), batchSeconds };
}

// ---- Retry scheduling designs (docs/events.md, "Retries outside the in-flight count") ----------

export type RetryDesign = 'visibility' | 'copies' | 'dueIndex' | 'scheduler';

/** Sends a wait takes as delayed copies: one per 15 min of SQS delay, at least one. */
export const copiesForWait = (seconds: number): number => Math.max(1, Math.ceil(seconds / MAX_SEND_DELAY_SECONDS));

/**
 * What scheduling the waits between attempts costs (USD): for `waits` (seconds each). Per design:
 * - visibility: one ChangeMessageVisibility per wait (the message stays in flight);
 * - copies: a send per 15 min of wait (SendMessageBatch), and for each hop beyond the first its
 *   share of a batch's receive and delete, and of a batch's invocation;
 * - dueIndex: the index entry put and removed (2 write units) and an enqueue in a SendMessageBatch
 *   of 10 (the sweep's own cost is by the month: `dueIndexSweepMonth`);
 * - scheduler: a one-time EventBridge Scheduler schedule per wait, and its SendMessage.
 */
export function retrySchedulingUsd(
  design: RetryDesign,
  waits: readonly number[],
  batchSize = DELIVERY.batchSize,
): number {
  const perBatch = (2 * PRICES.sqsRequest + PRICES.lambdaRequest) / batchSize;
  const perWait: Record<RetryDesign, (wait: number) => number> = {
    visibility: () => PRICES.sqsRequest,
    // The first copy counted as a call of its own (a retry is rare in a batch); the hops of a waiting
    // backlog fill whole batches, so each is a tenth of a SendMessageBatch and of a batch's receive,
    // delete and invocation.
    copies: (wait) => PRICES.sqsRequest + (copiesForWait(wait) - 1) * (PRICES.sqsRequest / batchSize + perBatch),
    dueIndex: () => 2 * PRICES.dynamoWriteUnit + PRICES.sqsRequest / 10,
    scheduler: () => PRICES.schedulerInvocation + PRICES.sqsRequest,
  };
  return waits.reduce((total, wait) => total + perWait[design](wait), 0);
}

/** The due-time index's sweep, a month whatever the traffic: one 128 MB invocation a minute of about 50 ms and one Query. */
export const dueIndexSweepMonth = (): number => {
  const runs = 30 * 24 * 60;
  return runs * (PRICES.lambdaRequest + 0.05 * (128 / MIB_PER_GB) * PRICES.lambdaArmGbSecond + PRICES.dynamoReadUnit);
};

const RETRY_DESIGNS: Array<[RetryDesign, string, string, string]> = [
  ['visibility', 'Parked in visibility (before)', 'exact', 'every waiting retry'],
  ['copies', '**Delayed copies, hops past 15 min (built)**', 'exact', 'none'],
  ['dueIndex', 'Due-time index swept every minute', 'up to 60 s late', 'none'],
  ['scheduler', 'EventBridge Scheduler, a schedule per retry', 'up to about a minute late', 'none'],
];

/** The comparison table: per million deliveries with the latency mix, and per million that run a whole schedule against a dead endpoint. */
function retryDesignTable(): string {
  const delays = DELIVERY.retryDelaysSeconds.slice(1);
  const retriesPerDelivery = 1 / (1 - ASSUMED.latency.timeoutShare) - 1;
  const hops = delays.reduce((n, w) => n + copiesForWait(w), 0);
  return [
    `#### Retry scheduling compared (per million deliveries; a whole schedule: ${delays.length} waits, ${hops} delayed copies)`,
    '',
    table(
      [
        'Design',
        'Retry goes',
        'In flight while waiting',
        'Latency mix',
        'Whole schedule (dead endpoint)',
        'A month, fixed',
      ],
      RETRY_DESIGNS.map(([design, name, late, inFlight]) => [
        name,
        late,
        inFlight,
        usd(retriesPerDelivery * retrySchedulingUsd(design, [delays[0]!]) * 1e6),
        usd(retrySchedulingUsd(design, delays) * 1e6),
        usd(design === 'dueIndex' ? dueIndexSweepMonth() : 0),
      ]),
    ),
  ].join('\n');
}

/** The delivery function as deployed: infra/sizing.ts and lib/core/settings.ts. */
export const DEPLOYED_DELIVERY: DeliverySizing = {
  memoryMb: FUNCTION_MEMORY_MB['deliver'] ?? STAGES['prod']!.defaultMemoryMb,
  batchSize: DELIVERY.batchSize,
  concurrent: true,
  index: 'failures',
  inDoubtCap: DELIVERY.endpointInFlight,
};

// ---- API requests by route ---------------------------------------------------------------------

/** DynamoDB use of one request, as `npm run bench -- cost` measures it (bench/cost-measured.json). */
export interface RouteUnits {
  reads: number;
  writes: number;
  calls: number;
}

export const MEASURED_FILE = 'bench/cost-measured.json';

/** The measured units of every route's sample request. */
export function measuredRoutes(): Record<string, RouteUnits> {
  return (JSON.parse(readFileSync(join(root, MEASURED_FILE), 'utf8')) as { routes: Record<string, RouteUnits> }).routes;
}

/**
 * Per million requests of one route, the authorizer's included: API Gateway caches none of its
 * answers (a revoked key is refused from its next request), so each request behind it runs it once:
 * an invocation with one strongly consistent GetItem of the key (1 unit; a portal token's two).
 */
export function routeCost(
  route: Route,
  units: RouteUnits,
): { lambda: number; dynamo: number; sqs: number; gateway: number; logs: number; xray: number; total: number } {
  const million = 1e6;
  const memoryMb = FUNCTION_MEMORY_MB[route.name] ?? STAGES['prod']!.defaultMemoryMb;
  const seconds = (units.calls * ASSUMED.awsCallMs + ASSUMED.routeCpuMs * (512 / memoryMb)) / 1000;
  const authorizerMb = FUNCTION_MEMORY_MB['authorizer'] ?? STAGES['prod']!.defaultMemoryMb;
  const authorizerSeconds = (ASSUMED.awsCallMs + ASSUMED.routeCpuMs * (512 / authorizerMb)) / 1000;
  const authorizerLambda = route.auth
    ? PRICES.lambdaRequest + authorizerSeconds * (authorizerMb / MIB_PER_GB) * PRICES.lambdaArmGbSecond
    : 0;
  const lambda =
    million * (PRICES.lambdaRequest + seconds * (memoryMb / MIB_PER_GB) * PRICES.lambdaArmGbSecond + authorizerLambda);
  const reads = units.reads + (route.auth ? 1 : 0);
  const dynamo = million * (reads * PRICES.dynamoReadUnit + units.writes * PRICES.dynamoWriteUnit);
  const sqs = route.sendsToQueue ? million * PRICES.sqsRequest : 0;
  const gateway = million * PRICES.restApiRequestFirstTier;
  // API Gateway's access-log line and Lambda's platform records (the authorizer's too).
  const platformLogs = ASSUMED.platformLogBytesPerInvocation * (route.auth ? 2 : 1);
  const logs = ((million * (ASSUMED.accessLogBytes + platformLogs)) / 1e9) * PRICES.logsIngestedGb;
  const xray =
    tracingOf(route.name) === Tracing.ACTIVE
      ? million * TRACING_FIXED_RATE * (PRICES.xrayTraceRecorded + PRICES.xrayTraceRetrieved)
      : 0;
  return { lambda, dynamo, sqs, gateway, logs, xray, total: lambda + dynamo + sqs + gateway + logs + xray };
}

// ---- SSE client-month ------------------------------------------------------------------------

/** One always-connected SSE client for 30 days (lib/events/feed/sse.ts polls an idle feed once a second). */
export function sseClientMonth(): Line[] {
  const seconds = 30 * 24 * 3600;
  const memoryMb = FUNCTION_MEMORY_MB['streamAgentEvents'] ?? STAGES['prod']!.defaultMemoryMb;
  // Each invocation ends 5 s before Lambda's limit; the client reconnects.
  const invocationSeconds = ROUTE_TIMEOUTS.streamingTimeoutSeconds - 5;
  const invocations = seconds / invocationSeconds;
  const pollReads = seconds / 1;
  // Every SSE_ACCESS_CHECK_MS the stream reads the key and the agent again (a portal link's stream its link too).
  const accessReads = (seconds / (SSE_ACCESS_CHECK_MS / 1000)) * 2;
  // The stream lease: taken and released once per invocation, renewed every renewMs in between.
  const leaseWrites = invocations * 2 + seconds / (STREAM_LEASE.renewMs / 1000);
  const gbSeconds = seconds * (memoryMb / MIB_PER_GB);
  return [
    {
      item: `Lambda duration, ${memoryMb} MB`,
      quantity: `${gbSeconds.toLocaleString('en-US')} GB-s`,
      usd: gbSeconds * PRICES.lambdaArmGbSecond,
    },
    {
      item: 'Lambda requests',
      quantity: `${Math.round(invocations).toLocaleString('en-US')}`,
      usd: invocations * PRICES.lambdaRequest,
    },
    {
      item: 'DynamoDB reads (idle polls, 1 a second)',
      quantity: `${(pollReads / 1e6).toFixed(2)} M units`,
      usd: pollReads * PRICES.dynamoReadUnit,
    },
    {
      item: `DynamoDB reads (access checks, key and agent every ${SSE_ACCESS_CHECK_MS / 1000} s)`,
      quantity: `${(accessReads / 1e6).toFixed(2)} M units`,
      usd: accessReads * PRICES.dynamoReadUnit,
    },
    {
      item: `DynamoDB writes (stream lease: take, release, renew every ${STREAM_LEASE.renewMs / 1000} s)`,
      quantity: `${Math.round(leaseWrites).toLocaleString('en-US')} units`,
      usd: leaseWrites * PRICES.dynamoWriteUnit,
    },
    {
      item: 'API Gateway requests',
      quantity: `${Math.round(invocations).toLocaleString('en-US')}`,
      usd: invocations * PRICES.restApiRequestFirstTier,
    },
  ];
}

// ---- Push client-month ------------------------------------------------------------------------

/**
 * One always-connected push client for 30 days, idle feed (the SSE table's scenario): connected
 * all the time, reconnecting when API Gateway ends a connection (PUSH.maxConnectionMs), a sync at
 * each connect and every PUSH.keepAliveSeconds (lib/events/push/). The store calls are the
 * handlers' own: $connect reads the key and the agent and claims a slot with its lookup item (a
 * transaction of two writes and a condition check that the key stands, 2 units each); a sync reads the lookup, the agent's connections item,
 * the key and the agent (access, again), the agent's counter and one Query of the feed, and counts
 * the message in the connection's and the key's windows (two small writes, 1 unit each);
 * $disconnect reads the lookup, frees the slot and deletes the lookup. Every read is
 * strongly consistent and under 4 KB (1 unit). Per pushed event, besides: the frame (a message)
 * and the push worker's reads (docs/cost.md prose).
 */
export function pushClientMonth(): Line[] {
  const seconds = 30 * 24 * 3600;
  const memoryMb = STAGES['prod']!.defaultMemoryMb;
  const connects = seconds / (PUSH.maxConnectionMs / 1000);
  const syncs = seconds / PUSH.keepAliveSeconds + connects;
  // A sync's 6 reads, and its 2 counts: the connection's and the key's message windows (PUSH.messageLimits).
  const calls = { connect: 3, sync: 8, disconnect: 3 };
  const invocations = connects * 2 + syncs;
  const storeCalls = connects * (calls.connect + calls.disconnect) + syncs * calls.sync;
  const gbSeconds =
    ((invocations * ASSUMED.routeCpuMs + storeCalls * ASSUMED.awsCallMs) / 1000) * (memoryMb / MIB_PER_GB);
  const reads = connects * (2 + 1) + syncs * 6;
  const writes = connects * (6 + 2) + syncs * 2;
  // API Gateway counts the handshake and every message either way; the client's syncs are the only ones on an idle feed.
  const messages = syncs + connects;
  const logBytes = invocations * (ASSUMED.platformLogBytesPerInvocation + ASSUMED.accessLogBytes);
  const logUsd =
    (logBytes / 1e9) *
    (PRICES.logsIngestedGb + (PRICES.logsStoredGbMonth * ASSUMED.logMonthsKept) / ASSUMED.logCompression);
  const minutes = seconds / 60;
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  return [
    {
      item: 'API Gateway connection-minutes',
      quantity: n(minutes),
      usd: minutes * PRICES.websocketConnectionMinute,
    },
    {
      item: `API Gateway messages (a sync every ${PUSH.keepAliveSeconds} s, ${n(connects)} reconnects)`,
      quantity: n(messages),
      usd: messages * PRICES.websocketMessage,
    },
    {
      item: `Lambda requests and duration, ${memoryMb} MB ($connect, sync, $disconnect)`,
      quantity: `${n(invocations)}, ${gbSeconds.toFixed(1)} GB-s`,
      usd: invocations * PRICES.lambdaRequest + gbSeconds * PRICES.lambdaArmGbSecond,
    },
    {
      item: 'DynamoDB reads and writes',
      quantity: `${n(reads)} / ${n(writes)} units`,
      usd: reads * PRICES.dynamoReadUnit + writes * PRICES.dynamoWriteUnit,
    },
    {
      item: 'Logs (Lambda platform lines, WebSocket access log)',
      quantity: `${(logBytes / 1e6).toFixed(1)} MB`,
      usd: logUsd,
    },
  ];
}

// ---- The tables --------------------------------------------------------------------------------

const table = (head: string[], rows: string[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join(
    '\n',
  );

/** Item, quantity and cost of each line, and their total. */
const linesTable = (lines: Line[]) => {
  const total = lines.reduce((t, l) => t + l.usd, 0);
  return table(
    ['Item', 'Quantity', 'Cost'],
    [...lines.map((l) => [l.item, l.quantity, usd(l.usd)]), ['**Total**', '', `**${usd(total)}**`]],
  );
};

/** The generated part of docs/cost.md. */
export function costTables(): string {
  const deployed = deliveryCost(DEPLOYED_DELIVERY);
  const variants: Array<[string, DeliverySizing]> = [
    [
      'Before: 512 MB, batch 10, POSTs at once, full index',
      { memoryMb: 512, batchSize: 10, concurrent: true, index: 'full', inDoubtCap: undefined },
    ],
    [
      '512 MB, POSTs one after another',
      { memoryMb: 512, batchSize: 10, concurrent: false, index: 'full', inDoubtCap: undefined },
    ],
    [
      'Before issue 40: 128 MB, batch 10, POSTs at once, full index',
      { ...DEPLOYED_DELIVERY, index: 'full', inDoubtCap: undefined },
    ],
    [
      `**Deployed: ${DEPLOYED_DELIVERY.memoryMb} MB, batch ${DEPLOYED_DELIVERY.batchSize}, POSTs at once, ${INDEX_NAMES[DEPLOYED_DELIVERY.index]}, ${DEPLOYED_DELIVERY.inDoubtCap} at once to an endpoint in doubt**`,
      DEPLOYED_DELIVERY,
    ],
    [`${DEPLOYED_DELIVERY.memoryMb} MB, no cap on endpoints in doubt`, { ...DEPLOYED_DELIVERY, inDoubtCap: undefined }],
    ['256 MB', { ...DEPLOYED_DELIVERY, memoryMb: 256 }],
    ['128 MB, batch 25 (a batching window)', { ...DEPLOYED_DELIVERY, memoryMb: 128, batchSize: 25 }],
    ...(['attempted', 'none'] as const).map((index): [string, DeliverySizing] => [
      `${DEPLOYED_DELIVERY.memoryMb} MB, ${INDEX_NAMES[index]}`,
      { ...DEPLOYED_DELIVERY, index },
    ]),
  ];
  const slowest = [1, 10].map((n) => `${n}: ${round(expectedSlowestSeconds(n), 3)} s`).join(', ');
  const measured = measuredRoutes();
  const routeRows = routes
    .filter((r) => !r.streaming)
    .map((r) => {
      const units = measured[r.name];
      if (!units) throw new Error(`${MEASURED_FILE} has no measurement of ${r.name}: run npm run bench -- cost`);
      const c = routeCost(r, units);
      return [
        r.name,
        `${units.calls} / ${units.reads} / ${units.writes}`,
        usd(c.gateway),
        usd(c.lambda),
        usd(c.dynamo),
        usd(c.sqs),
        usd(c.logs),
        usd(c.xray),
        `**${usd(c.total)}**`,
      ];
    });
  return [
    `#### Per million deliveries, as deployed (expected slowest receiver of a batch of ${slowest})`,
    '',
    linesTable(deployed.lines),
    '',
    '#### Delivery sizing and index designs compared (per million deliveries, same mix)',
    '',
    table(
      ['Design', 'Batch s', 'Lambda', 'DynamoDB writes', 'Total'],
      variants.map(([name, s]) => {
        const c = deliveryCost(s);
        const lambda = c.lines.filter((l) => l.item.startsWith('Lambda')).reduce((t, l) => t + l.usd, 0);
        return [name, round(c.batchSeconds, 3), usd(lambda), usd(c.lines[0]!.usd), `**${usd(c.total)}**`];
      }),
    ),
    '',
    retryDesignTable(),
    '',
    '#### Per million API requests, by route (first API Gateway tier)',
    '',
    table(
      [
        'Route',
        'DynamoDB calls / read units / write units',
        'API Gateway',
        'Lambda',
        'DynamoDB',
        'SQS',
        'Logs',
        'X-Ray',
        'Total',
      ],
      routeRows,
    ),
    '',
    '#### Per SSE client-month (always connected, idle feed)',
    '',
    linesTable(sseClientMonth()),
    '',
    '#### Per push client-month (WebSocket, always connected, idle feed)',
    '',
    linesTable(pushClientMonth()),
  ].join('\n');
}

/** docs/cost.md with its generated part (between the markers) replaced by `costTables()`. */
export const BEGIN =
  '<!-- cost tables: written by `npm run bench -- cost` (bench/_cost-model.ts); do not edit by hand -->';
export const END = '<!-- end of cost tables -->';
export function withTables(doc: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error('docs/cost.md lacks the cost table markers');
  return `${doc.slice(0, start + BEGIN.length)}\n\n${costTables()}\n\n${doc.slice(end)}`;
}

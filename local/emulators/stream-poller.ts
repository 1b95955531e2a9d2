/**
 * The local event source mapping of the table's stream (DynamoDB Local's streams API): reads each
 * shard in order, hands the handler real DynamoDBStreamEvent batches filtered like the CDK event
 * source, retries a failed batch from its earliest failed record, and checkpoints the last
 * processed sequence number per shard in a file, so a restarted process resumes where it
 * stopped (and starts at TRIM_HORIZON when it has no checkpoint).
 *
 * `parallelization` is the event source's ParallelizationFactor: up to that many batches of a
 * shard in the handler at once, each partition key's records in one lane, in stream order, and
 * the next records read while earlier batches run. The checkpoint moves past a page only when
 * every lane is through its records.
 */

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type Shard,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { withoutSdkLogger } from '../../lib/aws/no-sdk-logger.ts';
import { endpointOverride } from '../../lib/aws-endpoint.ts';
import { STREAM } from '../../lib/core/settings.ts';
import { matchesAnyFilter } from '../../lib/events/stream-filter.ts';
import { log } from '../../lib/observability/log.ts';

export interface StreamPollerOptions {
  endpoint: string;
  streamArn: string;
  handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>;
  /** Where the checkpoints live; in memory when absent. */
  checkpointFile?: string;
  batchSize?: number;
  /** The pause after an empty poll while the stream was lately busy (default 100 ms); at rest, RESTING_MS if longer. */
  idleMs?: number;
  /** Like the event source's retryAttempts: a batch that keeps failing is then skipped (and logged). */
  retryAttempts?: number;
  filter?: (record: DynamoDBRecord) => boolean;
  /** Lambda's ParallelizationFactor (1–10): concurrent batches per shard, one lane per partition key. Default 1. */
  parallelization?: number;
  /** Hears each page GetRecords returned, before it is filtered or handed over (a bench's trace). */
  onRead?: (records: readonly StreamRecord[]) => void;
}

const DESCRIBE_EVERY_MS = 5000;
/**
 * A stream that has been quiet for QUICK_AFTER_RECORDS_MS is polled at Lambda's base rate for a
 * stream event source, four times a second; until then every 100 ms, so the records of a burst, or
 * of a test's next step, wait little. Polling every 100 ms around the clock cost an idle `npm start`
 * (then three stream readers: relay, search, push; two since the relay hands off to the push) about 17 % of a core, 60 % of it these polls: 5.2 s of
 * CPU in 30 s, node and DynamoDB Local together; resting at four a second, 3.1–3.4 s. Rest came after
 * 2 s at first: six pipeline test files then took 2–3 % longer (a step after a pause waited for the
 * slower poll); after 10 s a test's pipeline seldom rests, and a runtime left idle does.
 */
const RESTING_MS = 250;
const QUICK_AFTER_RECORDS_MS = 10_000;
/** Pages read ahead of the oldest unfinished one (lanes, parallelization > 1): bounds the records held in memory. */
const PAGES_AHEAD = 20;

interface Checkpoints {
  streamArn: string;
  shards: Record<string, string>;
}

function loadCheckpoints(file: string | undefined, streamArn: string): Checkpoints {
  if (file && existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Checkpoints;
    // Another stream (the table was recreated): its positions mean nothing here.
    if (saved.streamArn === streamArn) return saved;
  }
  return { streamArn, shards: {} };
}

function saveCheckpoints(file: string | undefined, checkpoints: Checkpoints): void {
  if (!file) return;
  writeFileSync(`${file}.tmp`, JSON.stringify(checkpoints));
  renameSync(`${file}.tmp`, file); // atomic: a crash never leaves half a file
}

/**
 * The SDK's stream client deserialises an empty map attribute (`{"M": {}}` on the wire) as `{}`,
 * which unmarshall refuses ("No value defined"); Lambda hands the wire form over, so restore it.
 * Only an attribute value with no type at all is touched.
 */
function withEmptyMaps(image: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!image) return image;
  const fix = (value: unknown): unknown => {
    if (!value || typeof value !== 'object') return value;
    const av = value as Record<string, unknown>;
    if (Object.keys(av).length === 0) return { M: {} };
    if (av['M'] && typeof av['M'] === 'object') return { M: withEmptyMaps(av['M'] as Record<string, unknown>) };
    if (Array.isArray(av['L'])) return { L: (av['L'] as unknown[]).map(fix) };
    return value;
  };
  return Object.fromEntries(Object.entries(image).map(([k, v]) => [k, fix(v)]));
}

export function toLambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const d = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion ?? 'us-east-1',
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: d.ApproximateCreationDateTime
        ? Math.floor(d.ApproximateCreationDateTime.getTime() / 1000)
        : undefined,
      Keys: d.Keys as never,
      NewImage: withEmptyMaps(d.NewImage) as never,
      OldImage: withEmptyMaps(d.OldImage) as never,
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType as never,
    },
  };
}

/** The lane of a record: its partition key's (the table's `PK`), so one key's records stay in order (as Lambda keeps them). */
export function laneOf(record: DynamoDBRecord, lanes: number): number {
  const key = JSON.stringify(record.dynamodb?.Keys?.['PK'] ?? '');
  return createHash('sha256').update(key).digest().readUInt32BE(0) % lanes;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

export function startStreamPoller(options: StreamPollerOptions): { stop(): Promise<void> } {
  const {
    streamArn,
    handler,
    checkpointFile,
    batchSize = STREAM.batchSize,
    idleMs = 100,
    retryAttempts = STREAM.retryAttempts,
    filter = (r) => matchesAnyFilter(r),
    parallelization = 1,
  } = options;
  const client = withoutSdkLogger(new DynamoDBStreamsClient(endpointOverride(options.endpoint)));
  const checkpoints = loadCheckpoints(checkpointFile, streamArn);
  const iterators = new Map<string, string | null>(); // null = shard closed and fully read
  const abort = new AbortController();
  const signal = abort.signal;

  async function iteratorFor(shardId: string): Promise<string | undefined> {
    const after = checkpoints.shards[shardId];
    const { ShardIterator } = await client.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ...(after
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
          : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
      { abortSignal: signal },
    );
    return ShardIterator;
  }

  /** Invokes the handler until the batch is through (or given up); returns false to re-read from the checkpoint. */
  async function process(shardId: string, records: StreamRecord[]): Promise<boolean> {
    const all = records.map((r) => toLambdaRecord(r, streamArn));
    // Like Lambda: everything before the earliest failure is done.
    const through = (record: DynamoDBRecord) => {
      const done = all.indexOf(record) - 1;
      if (done >= 0) checkpoints.shards[shardId] = all[done]!.dynamodb!.SequenceNumber!;
      saveCheckpoints(checkpointFile, checkpoints);
    };
    if (!(await handOver(shardId, all.filter(filter), through))) return false;
    checkpoints.shards[shardId] = all.at(-1)!.dynamodb!.SequenceNumber!;
    saveCheckpoints(checkpointFile, checkpoints);
    return true;
  }

  /**
   * The handler's retries of one batch: from its earliest failed record, `retryAttempts` times, then
   * skipped. `retrying` hears of the record a retry starts from. False when stopped meanwhile.
   */
  async function handOver(
    shardId: string,
    wanted: DynamoDBRecord[],
    retrying: (from: DynamoDBRecord) => void = () => undefined,
  ): Promise<boolean> {
    for (let attempt = 0; wanted.length > 0; attempt++) {
      let failed: string[];
      try {
        const result = await handler({ Records: wanted });
        failed = (result?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
      } catch (err) {
        log.error('stream poller: handler threw', { error: err instanceof Error ? err.message : String(err) });
        failed = [wanted[0]!.dynamodb!.SequenceNumber!];
      }
      if (failed.length === 0) break;
      if (attempt >= retryAttempts) {
        log.error('stream poller: batch skipped after retries', { shardId, failed });
        break;
      }
      // Retry from the earliest failed record.
      const earliest = Math.max(
        0,
        wanted.findIndex((r) => failed.includes(r.dynamodb!.SequenceNumber!)),
      );
      retrying(wanted[earliest]!);
      await sleep(Math.min(200 * 2 ** attempt, 5000), signal);
      if (signal.aborted) return false;
      wanted.splice(0, earliest);
    }
    return true;
  }

  // Lanes (parallelization > 1). A lane hands its records over one batch at a time, and what
  // arrived meanwhile goes in its next batch (as Lambda batches what the shard holds), so a busy
  // lane's agent gets one invocation for its waiting records, not one per page read meanwhile.
  interface Page {
    open: number;
    done: (ok: boolean) => void;
  }
  const lanes = Array.from({ length: parallelization }, () => ({
    queued: [] as { record: DynamoDBRecord; page: Page; shardId: string }[],
    running: false,
  }));
  let checkpointed: Promise<boolean> = Promise.resolve(true);
  const pagesInFlight: Promise<boolean>[] = [];

  async function runLane(lane: (typeof lanes)[number]): Promise<void> {
    lane.running = true;
    while (lane.queued.length > 0) {
      const taken = lane.queued.splice(0, batchSize);
      const ok =
        !signal.aborted &&
        (await handOver(
          taken[0]!.shardId,
          taken.map((q) => q.record),
        ));
      for (const { page } of taken) if (--page.open === 0 || !ok) page.done(ok);
    }
    lane.running = false;
  }

  /** Hands a page to the lanes without waiting for them; waits only while PAGES_AHEAD pages are unfinished. */
  async function dispatch(shardId: string, records: StreamRecord[]): Promise<void> {
    const all = records.map((r) => toLambdaRecord(r, streamArn));
    const wanted = all.filter(filter);
    let done!: (ok: boolean) => void;
    const finished = new Promise<boolean>((resolve) => {
      done = resolve;
    });
    const page: Page = { open: wanted.length, done };
    if (wanted.length === 0) done(true);
    for (const record of wanted) lanes[laneOf(record, parallelization)]!.queued.push({ record, page, shardId });
    for (const lane of lanes) if (lane.queued.length > 0 && !lane.running) void runLane(lane);
    const last = all.at(-1)!.dynamodb!.SequenceNumber!;
    // A lane stopped before its batch was through keeps every later page's checkpoint where it was.
    checkpointed = checkpointed
      .then(async (ok) => {
        if (!ok || !(await finished)) return false;
        checkpoints.shards[shardId] = last;
        saveCheckpoints(checkpointFile, checkpoints);
        return true;
      })
      .catch((err: unknown) => {
        log.error('stream poller: checkpoint failed', { error: err instanceof Error ? err.message : String(err) });
        return false;
      });
    pagesInFlight.push(checkpointed);
    while (pagesInFlight.length >= PAGES_AHEAD) await pagesInFlight.shift();
  }

  async function pollShard(shardId: string): Promise<boolean> {
    const iterator = iterators.get(shardId) ?? (await iteratorFor(shardId));
    if (!iterator) return false;
    let page: GetRecordsCommandOutput;
    try {
      page = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: batchSize }), {
        abortSignal: signal,
      });
    } catch (err) {
      if (!(err instanceof ExpiredIteratorException)) throw err;
      iterators.delete(shardId);
      return true;
    }
    const records = page.Records ?? [];
    if (records.length > 0) options.onRead?.(records);
    if (records.length > 0 && parallelization > 1) await dispatch(shardId, records);
    else if (records.length > 0 && !(await process(shardId, records))) {
      iterators.delete(shardId);
      return false;
    }
    iterators.set(shardId, page.NextShardIterator ?? null);
    if (!page.NextShardIterator) shardClosed = true; // its child shard is next
    return records.length > 0;
  }

  // Shards change rarely (DynamoDB rolls them over every few hours): describe the stream now and
  // then, or right after a shard was read to its end, not on every poll.
  let shards: Shard[] = [];
  let describedAt = 0;
  let shardClosed = false;
  async function currentShards(): Promise<Shard[]> {
    if (Date.now() - describedAt > DESCRIBE_EVERY_MS || shardClosed || shards.length === 0) {
      shardClosed = false;
      const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: streamArn }), {
        abortSignal: signal,
      });
      shards = StreamDescription?.Shards ?? [];
      describedAt = Date.now();
    }
    return shards;
  }

  let lastRecordsAt = Date.now();
  async function loop(): Promise<void> {
    while (!signal.aborted) {
      let busy = false;
      try {
        const shards = await currentShards();
        const known = new Set(shards.map((s) => s.ShardId));
        for (const shard of shards) {
          const id = shard.ShardId!;
          if (iterators.get(id) === null) continue;
          // A child shard is read only after its parent is finished, which keeps each item's records in order.
          if (shard.ParentShardId && known.has(shard.ParentShardId) && iterators.get(shard.ParentShardId) !== null)
            continue;
          busy = (await pollShard(id)) || busy;
        }
      } catch (err) {
        if (signal.aborted) break;
        log.error('stream poller: read failed', { error: err instanceof Error ? err.message : String(err) });
      }
      if (busy) lastRecordsAt = Date.now();
      else
        await sleep(
          Date.now() - lastRecordsAt < QUICK_AFTER_RECORDS_MS ? idleMs : Math.max(idleMs, RESTING_MS),
          signal,
        );
    }
  }

  const running = loop();
  return {
    stop: async () => {
      abort.abort();
      await running;
      await checkpointed;
      client.destroy();
    },
  };
}

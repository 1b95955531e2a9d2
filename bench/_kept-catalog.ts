/**
 * Seeded catalogs in DynamoDB Local data folders, for a bench that measures a catalog too large to
 * seed on every run (bench/search-scale.ts): seeded once, kept in a folder, reused by later runs.
 *
 * Where a seed's time goes (`npm run bench -- seed-storage`, docs/benchmarks.md): DynamoDB Local's JVM does the
 * work, and a -dbPath folder on the disk seeds at about half the rate of one in tmpfs (the rest is
 * waiting for SQLite's writes to reach the disk), which runs at about 0.8 of -inMemory. So every
 * process of this bench runs on a scratch folder in tmpfs (/dev/shm) and the finished folder is
 * copied to the kept one. The seed also writes with the table's stream off (nothing reads it then;
 * a small gain at best) and switches it back on, so the table is the one ensureTable makes.
 */

import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../lib/store/client.ts';
import { STREAM_SPECIFICATION } from '../lib/store/create-table.ts';
import { processCpuSeconds } from './_cpu.ts';
import { type Side, startSide, use } from './marketplace.ts';

/** What a finished seed records, last, in its own table: a folder without it is not a catalog. */
export interface SeedMark {
  size: number;
  /** The posting partitions it wrote (the ones the bench's searches read), sorted. */
  partitions: string[];
  /** The `now` it was seeded with; a smaller catalog seeded with the same is its first templates. */
  now: number;
  seconds: number;
  /** CPU seconds the seed took in DynamoDB Local's JVM and in this (Node) process: where the time went. */
  cpu: { jvm: number; node: number } | undefined;
}

const MARK_KEY = { PK: 'BENCH#SEED', SK: 'DONE' };

/** An empty folder in tmpfs (the OS's temp folder where there is no /dev/shm), emptied if left by an earlier run. */
export function scratchFolder(name: string): string {
  const dir = join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

async function readMark(side: Side): Promise<SeedMark | undefined> {
  use(side);
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: MARK_KEY }));
  return Item?.['mark'] as SeedMark | undefined;
}

type Wanted = Pick<SeedMark, 'size' | 'partitions'>;

const sameSeed = (a: SeedMark | undefined, b: Wanted): a is SeedMark =>
  a?.size === b.size && JSON.stringify(a.partitions) === JSON.stringify(b.partitions);

function cpuSince(side: Side, jvm0: number | undefined, node0: NodeJS.CpuUsage): SeedMark['cpu'] {
  const jvm = processCpuSeconds(side.dynamo.pid);
  const node = process.cpuUsage(node0);
  return jvm === undefined || jvm0 === undefined
    ? undefined
    : { jvm: jvm - jvm0, node: (node.user + node.system) / 1e6 };
}

/**
 * Seeds a catalog into `dir` (':memory:' too) with a process of its own, the stream off while
 * writing unless `streamOn`, marks it and stops the process, so the folder is whole and closed.
 */
export async function seedFolder(
  dir: string,
  want: Omit<SeedMark, 'seconds' | 'cpu'>,
  seed: (side: Side) => Promise<void>,
  streamOn = false,
): Promise<SeedMark> {
  const side = await startSide(want.size, dir);
  try {
    if (!streamOn) await setStream(false);
    const [t0, jvm0, node0] = [performance.now(), processCpuSeconds(side.dynamo.pid), process.cpuUsage()];
    await seed(side);
    const mark: SeedMark = { ...want, seconds: (performance.now() - t0) / 1000, cpu: cpuSince(side, jvm0, node0) };
    if (!streamOn) await setStream(true);
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...MARK_KEY, mark } }));
    return mark;
  } finally {
    await side.dynamo.stop();
  }
}

async function setStream(enabled: boolean): Promise<void> {
  await db().send(
    new UpdateTableCommand({
      TableName: tableName(),
      StreamSpecification: enabled ? STREAM_SPECIFICATION : { StreamEnabled: false },
    }),
  );
}

/**
 * Opens the catalog kept in `kept` in a copy at `work`, or, when `kept` holds none seeded as
 * `want` says (never seeded, another size or other partitions), seeds one at `work` and keeps a
 * copy. The copy is made beside `kept` and renamed into place, so an interrupted run leaves either
 * the old folder or none, never half of one; a leftover partial copy is removed.
 */
export async function openKept(
  kept: string,
  work: string,
  want: Wanted,
  seed: (side: Side, now: number) => Promise<void>,
): Promise<{ side: Side; mark: SeedMark; reused: boolean }> {
  const partial = `${kept}.partial`;
  rmSync(partial, { recursive: true, force: true });
  if (existsSync(kept)) {
    cpSync(kept, work, { recursive: true });
    const side = await startSide(want.size, work);
    const mark = await readMark(side);
    if (sameSeed(mark, want)) return { side, mark, reused: true };
    await side.dynamo.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(kept, { recursive: true, force: true });
  }
  const now = Date.now();
  const mark = await seedFolder(work, { ...want, now }, (side) => seed(side, now));
  cpSync(work, partial, { recursive: true });
  renameSync(partial, kept);
  return { side: await startSide(want.size, work), mark, reused: false };
}

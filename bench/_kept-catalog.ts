/**
 * Seeded catalogs in DynamoDB Local data folders, for a bench that measures a catalog too large to
 * seed on every run (bench/search-scale.ts): seeded once, kept in a folder, reused by later runs.
 *
 * Where the seed's time went, measured on this machine: DynamoDB Local is CPU-bound on every write
 * (the JVM, not Node), and a -dbPath process on the disk wrote about 4x slower than one on tmpfs,
 * which matches -inMemory (SQLite syncs each write to the file). The table's stream, which nothing
 * reads during a seed, cost about a fifth more. So every process of this bench runs on a scratch
 * copy in tmpfs (/dev/shm), the seed writes with the stream switched off and switches it back on
 * (the table then is the one ensureTable makes), and the finished folder is copied to the kept one.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { db, tableName } from '../lib/store/client.ts';
import { STREAM_SPECIFICATION } from '../lib/store/create-table.ts';
import { startSide, use, type Side } from './marketplace.ts';

/** What a finished seed records, last, in its own table: a folder without it is not a catalog. */
export interface SeedMark {
  size: number;
  /** The posting partitions it wrote (the ones the bench's searches read), sorted. */
  partitions: string[];
  /** The `now` it was seeded with; a smaller catalog seeded with the same is its first templates. */
  now: number;
  seconds: number;
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

const sameSeed = (a: SeedMark | undefined, b: Omit<SeedMark, 'now' | 'seconds'>): a is SeedMark =>
  a?.size === b.size && JSON.stringify(a.partitions) === JSON.stringify(b.partitions);

/**
 * Seeds a catalog into `dir` with a process of its own (stream off while writing), marks it and
 * stops the process, so the folder is whole and closed.
 */
export async function seedFolder(dir: string, want: Omit<SeedMark, 'seconds'>, seed: (side: Side) => Promise<void>): Promise<SeedMark> {
  const side = await startSide(want.size, dir);
  try {
    await setStream(false);
    const t0 = performance.now();
    await seed(side);
    const mark: SeedMark = { ...want, seconds: (performance.now() - t0) / 1000 };
    await setStream(true);
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...MARK_KEY, mark } }));
    return mark;
  } finally {
    await side.dynamo.stop();
  }
}

async function setStream(enabled: boolean): Promise<void> {
  await db().send(new UpdateTableCommand({ TableName: tableName(), StreamSpecification: enabled ? STREAM_SPECIFICATION : { StreamEnabled: false } }));
}

/**
 * Opens the catalog kept in `kept` in a copy at `work`, or, when `kept` holds none seeded as
 * `want` says (never seeded, another size or other partitions), seeds one at `work` and keeps a
 * copy. The copy is made beside `kept` and renamed into place, so an interrupted run leaves either
 * the old folder or none, never half of one; a leftover partial copy is removed.
 */
export async function openKept(kept: string, work: string, want: Omit<SeedMark, 'now' | 'seconds'>, seed: (side: Side, now: number) => Promise<void>): Promise<{ side: Side; mark: SeedMark; reused: boolean }> {
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

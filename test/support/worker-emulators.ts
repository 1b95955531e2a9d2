import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/emulators/dynamodb-local.ts';
import { freePort } from '../../local/ports.ts';

/**
 * The integration tier's globalSetup (vitest.config.ts): one DynamoDB Local per vitest worker slot,
 * kept in the main process and leased to each test file by `test/support/per-file-table.ts`, which
 * makes the file a fresh table on it. A slot runs one file at a time (VITEST_POOL_ID), so a file
 * never shares its emulator with a file running at the same time; it only meets earlier files'
 * (deleted) tables.
 *
 * Started lazily, on a slot's first lease: a run of one file starts one JVM, not one per worker.
 * Recycled once it has served RECYCLE_AFTER_SECONDS of test files, or RECYCLE_AFTER_FILES files:
 * DynamoDB Local slows down with the work it has done, even with each file's table deleted. Measured
 * (2 cores, load 4): search-cost.test.ts's setup (600 templates and their postings) takes 27 s on
 * a fresh emulator and over 60 s (its timeout) on one that has just served search-pairs and
 * search-sort (about 220 s of writes), and search-pairs times out right after search-sort alone
 * (29 s); one emulator for a whole run once met lock-wait 500s in the 50-writer races. Time served
 * is the measure because files differ a hundredfold in the work they do: light files (most take a
 * few seconds) share an emulator, and the file after a heavy one gets a fresh one. The replacement
 * starts as soon as the worn one is given back, so the next file rarely waits for a JVM.
 * `DYNAMODB_RECYCLE_AFTER_SECONDS` and `DYNAMODB_RECYCLE_AFTER_FILES` override them (0 = never).
 */
const RECYCLE_AFTER_SECONDS = Number(process.env['DYNAMODB_RECYCLE_AFTER_SECONDS'] ?? 10);
const RECYCLE_AFTER_FILES = Number(process.env['DYNAMODB_RECYCLE_AFTER_FILES'] ?? 20);

/**
 * A bounded heap: each worker's JVM would otherwise size itself to a quarter of the machine's
 * memory. The tables live in SQLite's native memory, outside the heap; 512 MB is ample for a test
 * file's requests (the run's peak was far below it).
 */
export const EMULATOR_JVM_OPTIONS = ['-Xms64m', '-Xmx512m', '-XX:+UseSerialGC'] as const;

interface Slot {
  emulator: Promise<DynamoDbLocal>;
  leases: number;
  /** The process id of the test file holding the slot, until its afterAll gives it back. */
  holder?: number;
  heldSince: number;
  /** How long test files have held this emulator, in seconds. */
  served: number;
}

/** True while a process runs (a file whose worker died never gives its slot back). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where a test file leases its worker's DynamoDB Local: POST <url>/<VITEST_POOL_ID>/<pid> answers its endpoint. */
    dynamoLeaseUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const slots = new Map<string, Slot>();
  const start = (): Promise<DynamoDbLocal> =>
    freePort().then((port) => startDynamoDbLocal({ port, dataDir: ':memory:', jvmOptions: EMULATOR_JVM_OPTIONS }));

  const worn = (slot: Slot): boolean =>
    (RECYCLE_AFTER_FILES > 0 && slot.leases >= RECYCLE_AFTER_FILES) ||
    (RECYCLE_AFTER_SECONDS > 0 && slot.served >= RECYCLE_AFTER_SECONDS);

  const stopping: Promise<void>[] = [];

  /** A fresh emulator for the slot; the old one (if any) is stopped in the background. */
  function renew(slotId: string, old: Slot | undefined): Slot {
    const fresh: Slot = { emulator: start(), leases: 0, heldSince: 0, served: 0 };
    // A JVM that failed to start is not kept: the next file tries again (and says why if it fails too).
    fresh.emulator.catch(() => slots.get(slotId) === fresh && slots.delete(slotId));
    slots.set(slotId, fresh);
    if (old)
      stopping.push(
        old.emulator.then(
          (e) => e.stop(),
          () => undefined,
        ),
      );
    return fresh;
  }

  async function lease(slotId: string, pid: number): Promise<string> {
    let slot = slots.get(slotId);
    // The isolation this tier rests on: vitest runs one file at a time per slot (VITEST_POOL_ID).
    if (slot?.holder !== undefined && slot.holder !== pid && alive(slot.holder)) {
      throw new Error(
        `worker slot ${slotId} is still held by test process ${slot.holder}: two files would share one emulator`,
      );
    }
    if (!slot || worn(slot)) slot = renew(slotId, slot);
    slot.leases += 1;
    slot.holder = pid;
    const { endpoint } = await slot.emulator;
    slot.heldSince = Date.now();
    return endpoint;
  }

  function release(slotId: string, pid: number): void {
    const slot = slots.get(slotId);
    if (slot?.holder !== pid) return;
    slot.holder = undefined;
    slot.served += (Date.now() - slot.heldSince) / 1000;
    // Replace a worn emulator now, while the worker sets up its next file.
    if (worn(slot)) void renew(slotId, slot);
  }

  // POST /<slot>/<pid> leases the slot's emulator and answers its endpoint; DELETE gives it back.
  const server: Server = createServer((req, res) => {
    const [slotId = '', pid = ''] = (req.url ?? '/').slice(1).split('/').map(decodeURIComponent);
    if (req.method === 'DELETE') {
      release(slotId, Number(pid));
      res.end();
      return;
    }
    lease(slotId, Number(pid)).then(
      (endpoint) => res.end(endpoint),
      (err: unknown) => {
        res.statusCode = 500;
        res.end(err instanceof Error ? err.message : String(err));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  project.provide('dynamoLeaseUrl', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);

  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const running = [...slots.values()].map((s) =>
      s.emulator.then(
        (e) => e.stop(),
        () => undefined,
      ),
    );
    await Promise.all([...running, ...stopping]);
  };
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/emulators/dynamodb-local.ts';
import { freePort } from '../../local/ports.ts';
import { cpuSecondsOf, recordFileCost } from './cpu-profile.ts';

/**
 * The integration tier's globalSetup (vitest.config.ts): one DynamoDB Local for the whole run, kept
 * in the main process and leased to each test file by `test/support/per-file-table.ts` through its
 * worker slot (VITEST_POOL_ID). A slot runs one file at a time, and the lease refuses a second holder.
 *
 * Each file gets a database of its own inside the emulator: it runs without `-sharedDb`, which makes
 * DynamoDB Local keep one database per access key id, and the file's access key id is its own
 * (EMULATOR_ACCESS_KEY_ID). That is what lets one emulator serve a whole run, and the files of every
 * worker at once. With one shared database, stream records outlive their deleted table and every
 * later write pays for them: measured, rounds of 1,000 writes to a fresh streamed table on one
 * emulator cost 4.2, 6.3, 7.8, 9.6, 11.6 s of JVM CPU, and 3.3, 3.0, 3.0, 2.5, 2.6 s with a database
 * per round (the earlier runs replaced the emulator every 10 s of files to escape this).
 *
 * One JVM for all workers rather than one per worker: each JVM pays its start and compiles the same
 * hot code again. Measured on 2026-11-27, `npm test` with three workers on 2 cores: 493 s of CPU and
 * 288 s with a JVM per worker, 460 s and 274 s with one. A profiling run (TEST_CPU_PROFILE) gives each
 * slot a JVM of its own again, so the JVM's CPU while a file holds its slot is that file's alone.
 *
 * Started as the tier's setup runs (vitest runs it only when the tier has files to run), so the JVM
 * boots while the workers start and import; a profiling run starts each slot's on its first lease.
 */
/**
 * A bounded heap: each worker's JVM would otherwise size itself to a quarter of the machine's
 * memory. The tables live in SQLite's native memory, outside the heap; 512 MB is ample for a test
 * file's requests.
 */
export const EMULATOR_JVM_OPTIONS = ['-Xms64m', '-Xmx512m'] as const;

interface Slot {
  emulator: Promise<DynamoDbLocal>;
  /** The process id of the test file holding the slot, until its afterAll gives it back. */
  holder?: number;
  /** The emulator's CPU seconds when the holder leased it. */
  cpuAtLease?: number;
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
    /** Where a test file leases the run's DynamoDB Local through its worker slot: POST <url>/<VITEST_POOL_ID>/<pid> answers its endpoint. */
    dynamoLeaseUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const slots = new Map<string, Slot>();
  const start = (): Promise<DynamoDbLocal> =>
    freePort().then((port) =>
      startDynamoDbLocal({ port, dataDir: ':memory:', jvmOptions: EMULATOR_JVM_OPTIONS, sharedDb: false }),
    );

  const perSlot = Boolean(process.env['TEST_CPU_PROFILE']);
  let shared: Promise<DynamoDbLocal> | undefined;
  const emulator = (): Promise<DynamoDbLocal> => {
    if (perSlot) return start();
    if (!shared) {
      const starting = start();
      // A JVM that failed to start is not kept: the next file tries again (and says why if it fails too).
      starting.catch(() => {
        if (shared === starting) shared = undefined;
      });
      shared = starting;
    }
    return shared;
  };

  function open(slotId: string): Slot {
    const slot: Slot = { emulator: emulator() };
    slot.emulator.catch(() => slots.get(slotId) === slot && slots.delete(slotId));
    slots.set(slotId, slot);
    return slot;
  }

  async function lease(slotId: string, pid: number): Promise<string> {
    let slot = slots.get(slotId);
    // The isolation this tier rests on: vitest runs one file at a time per slot (VITEST_POOL_ID).
    if (slot?.holder !== undefined && slot.holder !== pid && alive(slot.holder)) {
      throw new Error(
        `worker slot ${slotId} is still held by test process ${slot.holder}: two files would share one emulator`,
      );
    }
    slot ??= open(slotId);
    slot.holder = pid;
    const emulator = await slot.emulator;
    slot.cpuAtLease = cpuSecondsOf(emulator.pid);
    return emulator.endpoint;
  }

  /** Gives the slot back; `cost` is what the file measured of itself, completed with the emulator's CPU. */
  async function release(slotId: string, pid: number, cost: URLSearchParams): Promise<void> {
    const slot = slots.get(slotId);
    if (slot?.holder !== pid) return;
    slot.holder = undefined;
    const jvm = cpuSecondsOf((await slot.emulator).pid) - (slot.cpuAtLease ?? 0);
    recordFileCost({
      file: cost.get('file') ?? '',
      wall: Number(cost.get('wall')),
      node: Number(cost.get('node')),
      jvm: Number(jvm.toFixed(1)),
    });
  }

  // POST /<slot>/<pid> leases the slot's emulator and answers its endpoint; DELETE gives it back.
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://lease');
    const [slotId = '', pid = ''] = url.pathname.slice(1).split('/').map(decodeURIComponent);
    if (req.method === 'DELETE') {
      void release(slotId, Number(pid), url.searchParams).finally(() => res.end());
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
  if (!perSlot) emulator().catch(() => undefined); // its failure is reported to the first lease
  project.provide('dynamoLeaseUrl', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);

  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const running = new Set([...slots.values()].map((s) => s.emulator));
    await Promise.all(
      [...running].map((e) =>
        e.then(
          (emulator) => emulator.stop(),
          () => undefined,
        ),
      ),
    );
  };
}

/**
 * One `npm start` per DATA_DIR. Two runtimes on one folder would run two DynamoDB Locals on the
 * same SQLite file and two pipelines on the same queue files; the second is refused at once with a
 * sentence naming the first.
 *
 * The lock is the file DATA_DIR/runtime.lock holding the owner's pid, host, port and start time.
 * It is created whole or not at all: written to a private temporary file, then hard-linked to the
 * lock's name, which fails if the name exists (atomic on every local file system). A lock whose
 * pid is gone on this host is stale: it is taken over under a second lock (runtime.lock.takeover),
 * so two starts that both find the same stale lock cannot both take it.
 */

import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { StartupError } from './emulators/dynamodb-local.ts';

export const LOCK_FILE = 'runtime.lock';

export interface LockOwner {
  pid: number;
  host: string;
  port: number;
  started_at: string;
}

export interface DataDirLock {
  path: string;
  release(): void;
}

/** A takeover lock older than this was left by a start that died in the middle of a takeover. */
const TAKEOVER_STALE_MS = 10_000;
const RETRY_WAIT_MS = 50;

/** The lock's owner; 'missing' when there is no lock file, 'unreadable' when it is not one this runtime wrote. */
function readOwner(path: string): LockOwner | 'missing' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw err;
  }
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.started_at === 'string')
      return value as LockOwner;
  } catch {
    // falls through
  }
  return 'unreadable';
}

const sameOwner = (a: LockOwner | string, b: LockOwner): boolean =>
  typeof a === 'object' && a.pid === b.pid && a.host === b.host && a.started_at === b.started_at;

/** True when a process with this pid runs on this host. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/**
 * A process killed with -9 whose parent died with it stays a zombie until init reaps it, and a
 * container's pid 1 may never do so: it answers signal 0 but runs nothing. Linux only (/proc);
 * elsewhere it counts as running.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/** True when the lock's process may still be running. Another host's pid cannot be checked: assume it runs. */
function ownerAlive(owner: LockOwner): boolean {
  return owner.host !== hostname() || pidAlive(owner.pid);
}

function describe(owner: LockOwner, dataDir: string): string {
  const where = owner.host === hostname() ? `pid ${owner.pid}` : `pid ${owner.pid} on host ${owner.host}`;
  return (
    `DATA_DIR ${dataDir} is in use by another npm start (${where}, API on port ${owner.port}, started ${owner.started_at}). ` +
    `Stop it (kill ${owner.pid}) or start with another DATA_DIR.`
  );
}

/** Creates `path` holding `content`, or returns false if it exists. Never leaves a half-written file under `path`. */
function createWhole(path: string, content: string): boolean {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode: 0o644 });
  try {
    linkSync(temporary, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkSync(temporary);
  }
}

function removeIfStaleTakeover(path: string): void {
  try {
    if (Date.now() - statSync(path).mtimeMs > TAKEOVER_STALE_MS) unlinkSync(path);
  } catch {
    // gone already
  }
}

/** Removes a stale lock, unless someone else is taking it over or it changed hands meanwhile. */
function takeOver(path: string, stale: LockOwner): void {
  const takeover = `${path}.takeover`;
  removeIfStaleTakeover(takeover);
  if (!createWhole(takeover, String(process.pid))) return;
  try {
    if (sameOwner(readOwner(path), stale)) unlinkSync(path);
  } finally {
    unlinkSync(takeover);
  }
}

/**
 * Takes DATA_DIR for this process, or throws a StartupError naming the process that has it.
 * `port` is the API port this process will listen on, for that sentence.
 */
export async function lockDataDir(dataDir: string, port: number): Promise<DataDirLock> {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, host: hostname(), port, started_at: new Date().toISOString() };
  const content = `${JSON.stringify(me)}\n`;
  // Each round either takes the lock, refuses, or sees a lock vanish (released or taken over):
  // a start racing others settles in a few rounds.
  while (!createWhole(path, content)) {
    const owner = readOwner(path);
    if (owner === 'unreadable') {
      throw new StartupError(
        `${path} exists and is not a lock this runtime can read. If no npm start uses ${dataDir}, delete that file.`,
      );
    }
    if (owner !== 'missing') {
      if (ownerAlive(owner)) throw new StartupError(describe(owner, dataDir));
      takeOver(path, owner);
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_WAIT_MS));
  }
  return {
    path,
    release() {
      // Only our own lock: never one a later start took over after judging us gone.
      if (sameOwner(readOwner(path), me)) unlinkSync(path);
    },
  };
}

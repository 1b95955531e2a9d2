import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fresh DATA_DIR for a runtime a test starts, in RAM (/dev/shm) where the machine has one: a
 * runtime on disk waits on an fsync per DynamoDB Local write, and a first start's search indexing
 * makes thousands (its demo seed took 146 s to become searchable from a disk folder and 36 s from
 * /dev/shm, side by side on one loaded machine). What a test checks of a data folder — a lock, data
 * kept across a restart — holds the same in RAM. Removed after the test file (each tier's setup
 * file calls removeScratchDirs: vitest ends its workers without their exit handlers), and when a
 * process of its own exits: a folder left in /dev/shm holds memory until the machine restarts.
 */
const made: string[] = [];

function inRam(): string | undefined {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return undefined;
  }
}

export function removeScratchDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(inRam() ?? tmpdir(), prefix));
  if (made.push(dir) === 1) process.once('exit', removeScratchDirs);
  return dir;
}

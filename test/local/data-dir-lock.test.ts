import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCK_FILE, lockDataDir } from '../../local/data-dir-lock.ts';
import { scratchDir } from '../support/scratch-dir.ts';

// Removed after the file by the tier's setup (nine folders a run were left in the temporary folder).
const folder = () => scratchDir('lock-');
/** The pid of a process that has already exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('one runtime per DATA_DIR', () => {
  it('takes a free folder, refuses a second taker naming the first, and frees it on release', async () => {
    const dir = folder();
    const lock = await lockDataDir(dir, 3000);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({
      pid: process.pid,
      host: hostname(),
      port: 3000,
    });
    await expect(lockDataDir(dir, 3001)).rejects.toThrow(
      `is in use by another npm start (pid ${process.pid}, API on port 3000`,
    );
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    (await lockDataDir(dir, 3001)).release();
  });

  it('takes over a lock whose process is gone', async () => {
    const dir = folder();
    writeFileSync(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: deadPid(), host: hostname(), port: 3000, started_at: '2026-01-01T00:00:00.000Z' }),
    );
    const lock = await lockDataDir(dir, 3002);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid, port: 3002 });
    lock.release();
  });

  it('does not release a lock another start took over', async () => {
    const dir = folder();
    const lock = await lockDataDir(dir, 3000);
    const other = { pid: process.ppid, host: hostname(), port: 4000, started_at: new Date().toISOString() };
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(other));
    lock.release();
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toEqual(other);
  });

  it('refuses, without guessing, a lock file it cannot read', async () => {
    const dir = folder();
    writeFileSync(join(dir, LOCK_FILE), 'not a lock');
    await expect(lockDataDir(dir, 3000)).rejects.toThrow('is not a lock this runtime can read');
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe('not a lock');
  });
});

import { readdirSync, readFileSync } from 'node:fs';

/** User + system CPU seconds of a process (or, with `statFile`, one of its threads) so far, from /proc (Linux); undefined elsewhere. */
export function processCpuSeconds(pid: number, statFile = `/proc/${pid}/stat`): number | undefined {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th, in clock ticks (100 a second on Linux).
    const fields = readFileSync(statFile, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** The ids of this process's threads now (Linux), to tell a worker thread's from the others. */
export function threadIds(): string[] {
  try {
    return readdirSync('/proc/self/task');
  } catch {
    return [];
  }
}

/** User + system CPU seconds of some of this process's threads, from /proc (Linux); undefined elsewhere. */
export function threadsCpuSeconds(ids: readonly string[]): number | undefined {
  if (ids.length === 0) return undefined;
  let sum = 0;
  for (const id of ids) {
    const seconds = processCpuSeconds(Number(id), `/proc/self/task/${id}/stat`);
    if (seconds === undefined) return undefined;
    sum += seconds;
  }
  return sum;
}

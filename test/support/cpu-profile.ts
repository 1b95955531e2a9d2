import { appendFileSync, readFileSync } from 'node:fs';

/**
 * Where the integration tier's time goes, file by file, in CPU seconds (which a busy machine
 * stretches less than wall time): `TEST_CPU_PROFILE=<file> npm run test:integration` appends a
 * line per test file — its wall time, the CPU of its worker process and the children it waited
 * for (`npm start`, the SQS emulator), and the CPU its worker's DynamoDB Local spent while the
 * file held it — and `node test/support/cpu-profile.ts <file>` prints them as a table,
 * costliest first (CONTRIBUTING, "CI: where the time goes").
 */
export interface FileCost {
  file: string;
  wall: number;
  node: number;
  jvm: number;
}

/** User + system CPU of a process and of its children it has reaped, in seconds (Linux /proc). */
export function cpuSecondsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime, stime, cutime, cstime are fields 14–17 of stat(5); here counted from field 3.
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100;
  } catch {
    return 0; // not Linux: the profile says 0
  }
}

export function recordFileCost(cost: FileCost): void {
  const to = process.env['TEST_CPU_PROFILE'];
  if (to) appendFileSync(to, `${JSON.stringify(cost)}\n`);
}

function printProfile(from: string): void {
  const costs = readFileSync(from, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as FileCost)
    .sort((a, b) => b.node + b.jvm - (a.node + a.jvm));
  const sum = (pick: (c: FileCost) => number) => costs.reduce((s, c) => s + pick(c), 0).toFixed(0);
  console.log(`| file | wall s | node CPU s | DynamoDB Local CPU s |\n|---|---|---|---|`);
  for (const c of costs) console.log(`| ${c.file} | ${c.wall} | ${c.node} | ${c.jvm} |`);
  console.log(`| ${costs.length} files | ${sum((c) => c.wall)} | ${sum((c) => c.node)} | ${sum((c) => c.jvm)} |`);
}

if (process.argv[1] === import.meta.filename && process.argv[2]) printProfile(process.argv[2]);

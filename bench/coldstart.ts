/**
 * `npm run bench -- coldstart`: what importing each function's bundle costs, against a floor.
 *
 * Every function is bundled exactly as `cdk synth` bundles it (infra/bundle.ts). So is the floor:
 * a handler holding only `@aws-sdk/lib-dynamodb` + `@aws-sdk/client-dynamodb` with one client
 * built, the least any of our functions could import. Each bundle is imported in a fresh Node
 * process (this Node, 24), rounds interleaved in a shuffled order so drift on this shared machine
 * lands on every row alike. Reported: CPU (user + system) and wall time of the import, their
 * medians, the ratio of each to the floor's median, and the process's RSS after the import (what a
 * function's memory setting must hold before its first request).
 */
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { allFunctions, bundleFunction } from '../infra/bundle.ts';
import { BUNDLING } from '../infra/lambda-function.ts';

const exec = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env['COLDSTART_ROUNDS'] ?? 7);
const GOAL = 1.3;

const FLOOR_SOURCE = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const handler = async () => db.send(new GetCommand({ TableName: 't', Key: { PK: 'x', SK: 'y' } }));
`;

async function bundleFloor(outDir: string): Promise<{ file: string; bytes: number }> {
  const file = join(outDir, 'index.mjs');
  await build({
    stdin: { contents: FLOOR_SOURCE, resolveDir: root, loader: 'ts', sourcefile: 'floor.ts' },
    outfile: file,
    bundle: true,
    platform: 'node',
    target: BUNDLING.target,
    format: 'esm',
    minify: true,
    mainFields: BUNDLING.mainFields,
    banner: { js: BUNDLING.banner },
    alias: BUNDLING.alias,
    logLevel: 'error',
  });
  return { file, bytes: statSync(file).size };
}

/**
 * The child: Lambda's Node runtime provides `awslambda` (response streaming) before it imports a
 * handler; so does this, with a stand-in that only lets the module load.
 */
const CHILD = `
globalThis.awslambda = { streamifyResponse: (f) => f, HttpResponseStream: { from: (s) => s } };
const c0 = process.cpuUsage(); const t0 = performance.now();
await import(process.argv[1]);
const c = process.cpuUsage(c0);
process.stdout.write(JSON.stringify({ wall: performance.now() - t0, cpu: (c.user + c.system) / 1000, rss: process.memoryUsage().rss }));
`;

interface Sample {
  wall: number;
  cpu: number;
  rss: number;
}

async function importOnce(file: string): Promise<Sample> {
  const env = { PATH: process.env['PATH'] ?? '', AWS_REGION: 'eu-west-1', TABLE_NAME: 'bench', LOG_LEVEL: 'silent' };
  const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', CHILD, file], { env });
  return JSON.parse(stdout) as Sample;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function shuffled<T>(xs: T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

export async function run(): Promise<string> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'coldstart-'));
  try {
    const bundles: Array<{ name: string; file: string; bytes: number }> = [];
    const floorDir = join(dir, '_floor');
    mkdirSync(floorDir);
    bundles.push({ name: 'floor', ...(await bundleFloor(floorDir)) });
    for (const fn of allFunctions()) {
      const out = join(dir, fn.name);
      mkdirSync(out);
      const { file, bytes } = await bundleFunction(fn.entry, out);
      bundles.push({ name: fn.name, file, bytes });
    }
    const samples = new Map<string, Sample[]>(bundles.map((b) => [b.name, []]));
    for (const b of bundles) await importOnce(b.file); // warm the file cache once
    for (let round = 0; round < ROUNDS; round++) {
      for (const b of shuffled(bundles)) samples.get(b.name)!.push(await importOnce(b.file));
    }
    const stat = (name: string) => {
      const s = samples.get(name)!;
      return { cpu: median(s.map((x) => x.cpu)), wall: median(s.map((x) => x.wall)), rss: Math.max(...s.map((x) => x.rss)) };
    };
    const floor = stat('floor');
    const rows = bundles.map((b) => {
      const s = stat(b.name);
      return { name: b.name, kb: b.bytes / 1024, ...s, cpuRatio: s.cpu / floor.cpu, wallRatio: s.wall / floor.wall };
    });
    const fns = rows.filter((r) => r.name !== 'floor');
    const withinGoal = fns.filter((r) => r.cpuRatio <= GOAL).length;
    const lines = [
      '### Cold start: importing each function bundle against the floor',
      '',
      `Node ${process.version}, ${ROUNDS} rounds after one warm-up import each, every import in a fresh process, rounds interleaved in a shuffled order. ` +
        'Floor = a bundle holding only `@aws-sdk/lib-dynamodb` + `@aws-sdk/client-dynamodb` (one client built), bundled with the same esbuild options as the functions (credential chain trimmed to the environment, as theirs). ' +
        'CPU = user + system time of the import, wall = its elapsed time (medians); RSS = the most resident memory seen after the import. ' +
        `Goal: CPU ratio ≤ ${GOAL}. ${withinGoal} of ${fns.length} functions within it; largest CPU ratio ${Math.max(...fns.map((r) => r.cpuRatio)).toFixed(2)}. Run took ${Math.round((Date.now() - started) / 1000)} s.`,
      '',
      '| Function | Bundle KB | CPU ms | CPU ratio | Wall ms | Wall ratio | RSS MB |',
      '|---|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.name} | ${r.kb.toFixed(1)} | ${r.cpu.toFixed(1)} | ${r.cpuRatio.toFixed(2)} | ${r.wall.toFixed(1)} | ${r.wallRatio.toFixed(2)} | ${(r.rss / 2 ** 20).toFixed(0)} |`),
    ];
    return lines.join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `npm run bench -- coldstart`: what importing each function's bundle costs as deployed, against
 * a floor, with and without source maps.
 *
 * Every function is bundled exactly as `cdk synth` bundles it (infra/bundle.ts), and imported with
 * the environment it gets in AWS (infra/bundle-env.ts: the synthesized template's variables,
 * NODE_OPTIONS included, plus what Lambda's runtime sets). Two variants of each, in the same run:
 * "no maps" (no .map in the zip, no --enable-source-maps) and "maps" (the .map beside the bundle
 * and NODE_OPTIONS=--enable-source-maps, which makes Node read and parse the map at import). The
 * floor (infra/bundle.ts) is a bundle of the DynamoDB client alone, imported with the runtime's
 * variables and no maps. Each import runs in a fresh Node process (this Node, 24), rounds
 * interleaved in a shuffled order so drift on this shared machine lands on every row alike.
 * Reported: CPU (user + system) and wall time of the import, their medians, the ratio of each to
 * the floor's median, and the process's RSS after the import (what a function's memory setting
 * must hold before its first request).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { allFunctions, bundleFloor, bundleFunction, DEPLOYED_SOURCE_MAPS } from '../infra/bundle.ts';
import { deployedFunctions, lambdaRuntimeEnv } from '../infra/bundle-env.ts';

const exec = promisify(execFile);
const ROUNDS = Number(process.env['COLDSTART_ROUNDS'] ?? 7);
const GOAL = 1.3;
const MAPS_FLAG = '--enable-source-maps';

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

type Variant = 'noMaps' | 'maps';

interface Import {
  key: string;
  file: string;
  env: Record<string, string>;
}

async function importOnce(i: Import): Promise<Sample> {
  const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', CHILD, i.file], {
    env: { PATH: process.env['PATH'] ?? '', ...i.env },
  });
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

/** NODE_OPTIONS of a variant: the deployed value with the source-map flag added or taken out. */
function nodeOptions(deployed: string | undefined, variant: Variant): string {
  const flags = (deployed ?? '').split(/\s+/).filter((f) => f && f !== MAPS_FLAG);
  return [...flags, ...(variant === 'maps' ? [MAPS_FLAG] : [])].join(' ');
}

export async function run(): Promise<string> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'coldstart-'));
  try {
    const fns = allFunctions();
    const deployed = deployedFunctions(fns.map((f) => f.name));
    const flagDeployed = [...deployed.values()].map((d) =>
      (d.variables['NODE_OPTIONS'] ?? '').split(/\s+/).includes(MAPS_FLAG),
    );
    const deployedVariant: Variant = flagDeployed.every(Boolean) ? 'maps' : 'noMaps';
    // A flag without maps (or maps without the flag) is a deployment bug; so is a mix.
    if (
      flagDeployed.some((f) => f !== flagDeployed[0]) ||
      (deployedVariant === 'maps') !== (DEPLOYED_SOURCE_MAPS === 'linked')
    ) {
      throw new Error(`NODE_OPTIONS ${MAPS_FLAG} and the bundles' source maps (${DEPLOYED_SOURCE_MAPS}) disagree`);
    }

    const imports: Import[] = [];
    const floorDir = join(dir, '_floor');
    mkdirSync(floorDir);
    const floor = await bundleFloor(floorDir, 'none');
    imports.push({ key: 'floor', file: floor.file, env: lambdaRuntimeEnv('floor', 512) });
    const sizes = new Map<string, { kb: number; mapKb: number }>([['floor', { kb: floor.bytes / 1024, mapKb: 0 }]]);
    for (const fn of fns) {
      const d = deployed.get(fn.name)!;
      for (const variant of ['noMaps', 'maps'] as const) {
        const out = join(dir, `${fn.name}-${variant}`);
        mkdirSync(out);
        const b = await bundleFunction(fn.entry, out, variant === 'maps' ? 'linked' : 'none');
        if (variant === 'maps') sizes.set(fn.name, { ...sizes.get(fn.name)!, mapKb: statSync(b.mapFile).size / 1024 });
        else sizes.set(fn.name, { kb: b.bytes / 1024, mapKb: 0 });
        const env = {
          ...lambdaRuntimeEnv(fn.name, d.memoryMb),
          ...d.variables,
          NODE_OPTIONS: nodeOptions(d.variables['NODE_OPTIONS'], variant),
        };
        if (!env.NODE_OPTIONS) delete (env as Record<string, string | undefined>)['NODE_OPTIONS'];
        imports.push({ key: `${fn.name}/${variant}`, file: b.file, env });
      }
    }
    const samples = new Map<string, Sample[]>(imports.map((i) => [i.key, []]));
    for (const i of imports) await importOnce(i); // warm the file cache once
    for (let round = 0; round < ROUNDS; round++) {
      for (const i of shuffled(imports)) samples.get(i.key)!.push(await importOnce(i));
    }
    const stat = (key: string) => {
      const s = samples.get(key)!;
      return {
        cpu: median(s.map((x) => x.cpu)),
        wall: median(s.map((x) => x.wall)),
        rss: Math.max(...s.map((x) => x.rss)),
      };
    };
    const base = stat('floor');
    const rows = fns.map((fn) => {
      const no = stat(`${fn.name}/noMaps`);
      const maps = stat(`${fn.name}/maps`);
      return {
        name: fn.name,
        ...sizes.get(fn.name)!,
        no,
        maps,
        noRatio: no.cpu / base.cpu,
        mapsRatio: maps.cpu / base.cpu,
      };
    });
    const within = (key: 'noRatio' | 'mapsRatio') => rows.filter((r) => r[key] <= GOAL).length;
    const largest = (key: 'noRatio' | 'mapsRatio') => Math.max(...rows.map((r) => r[key])).toFixed(2);
    const extra = median(rows.map((r) => r.maps.cpu / r.no.cpu - 1));
    const fmt = (n: number) => n.toFixed(1);
    const lines = [
      '### Cold start as deployed: importing each function bundle against the floor, without and with source maps',
      '',
      `Node ${process.version}, ${ROUNDS} rounds after one warm-up import each, every import in a fresh process with the function's environment in AWS ` +
        "(the synthesized template's variables and NODE_OPTIONS, plus what Lambda's runtime sets: infra/bundle-env.ts), rounds interleaved in a shuffled order. " +
        "Floor = a bundle holding only `@aws-sdk/lib-dynamodb` + `@aws-sdk/client-dynamodb` (one client built), bundled with the functions' esbuild options. " +
        `"No maps" = no .map shipped and no ${MAPS_FLAG}; "maps" = the .map beside the bundle and NODE_OPTIONS=${MAPS_FLAG}. ` +
        `Deployed today: **${deployedVariant === 'maps' ? 'maps' : 'no maps'}**. ` +
        'CPU = user + system time of the import, wall = its elapsed time (medians); RSS = the most resident memory seen after the import. ' +
        `Goal: CPU ratio ≤ ${GOAL}. No maps: ${within('noRatio')} of ${rows.length} within it, largest ${largest('noRatio')}. ` +
        `Maps: ${within('mapsRatio')} of ${rows.length}, largest ${largest('mapsRatio')}; the maps add a median ${Math.round(extra * 100)} % of import CPU. ` +
        `Run took ${Math.round((Date.now() - started) / 1000)} s.`,
      '',
      '| Function | Bundle KB | Map KB | CPU ms, no maps | CPU ratio, no maps | CPU ms, maps | CPU ratio, maps | Wall ratio, no maps / maps | RSS MB, no maps / maps |',
      '|---|---|---|---|---|---|---|---|---|',
      `| floor | ${fmt(sizes.get('floor')!.kb)} | | ${fmt(base.cpu)} | 1.00 | | | 1.00 | ${(base.rss / 2 ** 20).toFixed(0)} |`,
      ...rows.map(
        (r) =>
          `| ${r.name} | ${fmt(r.kb)} | ${fmt(r.mapKb)} | ${fmt(r.no.cpu)} | ${r.noRatio.toFixed(2)} | ${fmt(r.maps.cpu)} | ${r.mapsRatio.toFixed(2)} | ` +
          `${(r.no.wall / base.wall).toFixed(2)} / ${(r.maps.wall / base.wall).toFixed(2)} | ${(r.no.rss / 2 ** 20).toFixed(0)} / ${(r.maps.rss / 2 ** 20).toFixed(0)} |`,
      ),
    ];
    return lines.join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

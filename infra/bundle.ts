import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Code, Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BuildOptions, build, buildSync } from 'esbuild';
import { routes, workers } from '../lib/routes.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Every function the stack deploys: name and entry module. */
export const allFunctions = (): Array<{ name: string; entry: string }> => [
  ...routes.map((r) => ({ name: r.name, entry: r.handler })),
  ...Object.entries(workers).map(([name, entry]) => ({ name, entry })),
];

/** The most a function's minified bundle may weigh (bytes): the import is most of a cold start. */
export const BUNDLE_BUDGET_BYTES = 250 * 1024;

/**
 * The esbuild settings every function is bundled with: `cdk synth` (functionCode below), the
 * bundle-size test and `npm run bench -- coldstart` all build with them, so what they measure is what ships.
 */
export const BUNDLING = {
  target: 'node24',
  minify: true,
  // Stack traces map back to the source, but the maps hold no copy of it (they were 98 MB).
  sourceMap: true,
  sourcesContent: false,
  // The AWS SDK is bundled too: a smaller cold start than the runtime's copy.
  externalModules: [] as string[],
  mainFields: ['module', 'main'],
  banner: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  /** Module replacements inside the bundles only: parts of the SDK no function runs (each file says why). */
  alias: {
    '@aws-sdk/credential-provider-node': resolve(root, 'lib/aws/env-credentials.ts'),
    '@smithy/core/event-streams': resolve(root, 'lib/aws/no-event-streams.ts'),
    'mnemonist/lru-cache': resolve(root, 'lib/aws/small-lru.ts'),
    '@aws/lambda-invoke-store': resolve(root, 'lib/aws/no-invoke-store.ts'),
  } as Record<string, string>,
};

/** BUNDLING as esbuild options: an ES module `index.mjs` (handler `index.handler`) and its source map. */
const esbuildOptions: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: BUNDLING.target,
  format: 'esm',
  minify: BUNDLING.minify,
  sourcemap: BUNDLING.sourceMap,
  sourcesContent: BUNDLING.sourcesContent,
  mainFields: BUNDLING.mainFields,
  external: BUNDLING.externalModules,
  banner: { js: BUNDLING.banner },
  alias: BUNDLING.alias,
  logLevel: 'error',
};

/**
 * Bundles one entry exactly as `cdk synth` does, for the size test and the cold-start bench.
 * Returns the bundle's and its source map's paths and sizes, and the absolute paths of the files it
 * was built from.
 */
export async function bundleFunction(
  entry: string,
  outDir: string,
): Promise<{ file: string; bytes: number; mapFile: string; inputs: string[] }> {
  const file = join(outDir, 'index.mjs');
  const result = await build({ ...esbuildOptions, entryPoints: [resolve(root, entry)], outfile: file, metafile: true });
  // The metafile names inputs relative to the working directory.
  const inputs = Object.keys(result.metafile.inputs).map((input) => resolve(input));
  return { file, bytes: statSync(file).size, mapFile: `${file}.map`, inputs };
}

/**
 * Everything a function bundle is built from: the source folders its entry can import from, the
 * documents two functions serve, the lockfile (every package version, esbuild's included) and this file (the settings above).
 * infra/bundle-size.test.ts fails if a bundle takes a file from outside them.
 */
export const BUNDLE_INPUTS = [
  'lib',
  'functions',
  // Served as they are by the openApiDocument and listEventTypes functions.
  'docs/openapi.json',
  'docs/event-types.json',
  'package-lock.json',
  // esbuild reads compiler options from it.
  'tsconfig.json',
  'infra/bundle.ts',
] as const;

let inputsHash: string | undefined;

/** A hash of BUNDLE_INPUTS' contents (paths and bytes), computed once per process: a few hundred small files. */
function bundleInputsHash(): string {
  if (inputsHash) return inputsHash;
  const hash = createHash('sha256');
  const add = (path: string): void => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) add(join(path, name));
    } else {
      hash
        .update(`${relative(root, path)}\0`)
        .update(readFileSync(path))
        .update('\0');
    }
  };
  for (const input of BUNDLE_INPUTS) add(resolve(root, input));
  inputsHash = hash.digest('hex');
  return inputsHash;
}

/**
 * A function's asset hash, from its entry and the contents of what it is built from, known before
 * bundling. A change to any input changes every function's hash: it can rebuild too much, never
 * reuse a stale bundle.
 */
export const bundleAssetHash = (entry: string): string =>
  createHash('sha256').update(bundleInputsHash()).update(`\0${entry}`).digest('hex');

/** Where this process's one esbuild run of every function left each bundle, by entry. */
let built: Map<string, string> | undefined;

/**
 * Bundles every function in one esbuild run (the modules they share, the AWS SDK most of all, are
 * parsed once instead of once per function: about 8 times faster than a run per function), beside
 * CDK's `outputDir` so each bundle can be moved into place with its source map's relative paths
 * unchanged. Whatever this synth does not claim is removed when the process exits.
 */
function buildAll(outputDir: string, entry: string): Map<string, string> {
  if (built) return built;
  const base = dirname(outputDir);
  const entries = [...new Set([...allFunctions().map((f) => f.entry), entry])];
  const dirOf = new Map(entries.map((e, i) => [e, join(base, `.bundle-${process.pid}-${i}`)]));
  buildSync({
    ...esbuildOptions,
    entryPoints: Object.fromEntries(entries.map((e) => [`${relative(base, dirOf.get(e)!)}/index`, resolve(root, e)])),
    outdir: base,
    outExtension: { '.js': '.mjs' },
  });
  process.once('exit', () => {
    for (const dir of dirOf.values()) rmSync(dir, { recursive: true, force: true });
  });
  built = dirOf;
  return built;
}

/**
 * A function's code for CDK: the bundle of `entry`, under a hash of its inputs (bundleAssetHash).
 * CDK bundles only when `cdk.out/asset.<hash>` is missing, so a second synth of the same sources (the
 * dev stage after prod in CI, or any stage after a change outside lib/ and functions/) bundles nothing;
 * the first bundles every function at once (buildAll).
 */
export function functionCode(entry: string): Code {
  return Code.fromAsset(root, {
    assetHash: bundleAssetHash(entry),
    assetHashType: AssetHashType.CUSTOM,
    bundling: {
      // Never used: local bundling below always succeeds or throws.
      image: DockerImage.fromRegistry(Runtime.NODEJS_24_X.bundlingImage.image),
      local: {
        tryBundle(outputDir: string): boolean {
          const dir = buildAll(outputDir, entry).get(entry)!;
          for (const file of ['index.mjs', 'index.mjs.map']) renameSync(join(dir, file), join(outputDir, file));
          rmSync(dir, { recursive: true, force: true });
          return true;
        },
      },
    },
  });
}

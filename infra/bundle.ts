import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Code, Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BuildOptions, build, buildSync } from 'esbuild';
import { routes, socketRoutes, workers } from '../lib/routes.ts';
import { OPENAPI_HANDLER, writeOpenApiDocument } from '../local/openapi-document.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Every function the stack deploys: name and entry module. */
export const allFunctions = (): Array<{ name: string; entry: string }> => [
  ...routes.map((r) => ({ name: r.name, entry: r.handler })),
  ...Object.entries(workers).map(([name, entry]) => ({ name, entry })),
  ...socketRoutes.map((r) => ({ name: r.name, entry: r.handler })),
];

/**
 * The least any function could import: `@aws-sdk/lib-dynamodb` + `@aws-sdk/client-dynamodb` with
 * one client built, bundled with the functions' options (the same SDK trims). Every function
 * imports it; the cold-start goal and the bundle budget are measured against it.
 */
const FLOOR_SOURCE = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const handler = async () => db.send(new GetCommand({ TableName: 't', Key: { PK: 'x', SK: 'y' } }));
`;

/**
 * The most a function's minified bundle may weigh over the floor (bytes). The floor is the AWS
 * SDK's DynamoDB client (about 170 KB, already trimmed by BUNDLING.alias), which every function
 * imports and which moves with SDK releases, not with our code; the budget holds what we add on
 * top of it: our code, zod, and the SQS client where a function sends to the queue (about 30 KB).
 * 80 KB keeps 10 % headroom over the largest function today (retryDelivery, floor + 71 KB).
 */
export const BUNDLE_OVER_FLOOR_BYTES = 80 * 1024;

/**
 * The esbuild settings every function is bundled with: `cdk synth` (functionCode below), the
 * bundle-size test and `npm run bench -- coldstart` all build with them, so what they measure is what ships.
 */
export const BUNDLING = {
  target: 'node24',
  minify: true,
  /**
   * No source map in the zip and no --enable-source-maps: with them Node read and parsed a map of
   * about 400 KB at every cold start, a median 23 % more import CPU (`npm run bench -- coldstart`
   * measures both). A minified stack trace from the logs maps back offline with
   * `npm run --silent map-stack-trace -- <function>` (scripts/map-stack-trace.ts), which rebuilds
   * the same bundle with its map from the deployed commit.
   */
  sourceMap: false,
  // Maps made offline name the sources but hold no copy of them (they were 98 MB).
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
    '@smithy/core/checksum': resolve(root, 'lib/aws/node-checksums.ts'),
    '@aws-sdk/signature-v4-multi-region': resolve(root, 'lib/aws/single-region-signer.ts'),
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
 * Source maps as a bundle may carry them: `linked` = a .map file beside the bundle and a
 * `sourceMappingURL` comment (what `sourceMap: true` ships), `external` = the .map file only (the
 * code is byte for byte the unmapped bundle's; scripts/map-stack-trace.ts), `none` = no map.
 */
export type SourceMaps = 'linked' | 'external' | 'none';

/** The source maps the deployed functions ship. */
export const DEPLOYED_SOURCE_MAPS: SourceMaps = BUNDLING.sourceMap ? 'linked' : 'none';

interface Bundled {
  file: string;
  bytes: number;
  /** The source map's path (absent on disk for `none`). */
  mapFile: string;
  /** The absolute paths of the files it was built from. */
  inputs: string[];
}

async function bundle(
  entry: { path: string } | { contents: string },
  outDir: string,
  maps: SourceMaps,
): Promise<Bundled> {
  const file = join(outDir, 'index.mjs');
  const result = await build({
    ...esbuildOptions,
    ...('path' in entry
      ? { entryPoints: [resolve(root, entry.path)] }
      : { stdin: { contents: entry.contents, resolveDir: root, loader: 'ts', sourcefile: 'floor.ts' } }),
    sourcemap: maps === 'none' ? false : maps,
    outfile: file,
    metafile: true,
  });
  // The metafile names inputs relative to the working directory.
  const inputs = Object.keys(result.metafile.inputs).map((input) => resolve(input));
  return { file, bytes: statSync(file).size, mapFile: `${file}.map`, inputs };
}

/**
 * Bundles one entry exactly as `cdk synth` does (functionCode below), for the size test, the
 * cold-start bench and the stack-trace mapper; `maps` other than the deployed setting is for comparing.
 */
export async function bundleFunction(
  entry: string,
  outDir: string,
  maps: SourceMaps = DEPLOYED_SOURCE_MAPS,
): Promise<Bundled> {
  // The document this function bundles is a build artifact: made first (synth's app does the same).
  if (entry === OPENAPI_HANDLER) await writeOpenApiDocument();
  return bundle({ path: entry }, outDir, maps);
}

/** The floor (above), bundled like the functions. */
export const bundleFloor = (outDir: string, maps: SourceMaps = DEPLOYED_SOURCE_MAPS): Promise<Bundled> =>
  bundle({ contents: FLOOR_SOURCE }, outDir, maps);

/**
 * The OpenAPI document, a build artifact (local/openapi-document.ts) that the CDK app writes before
 * it bundles (infra/app.ts): hashed when there, skipped by a synth that bundles nothing before it
 * exists (the infra tests on a fresh clone). A synth that bundles without it fails in esbuild, so no
 * bundle is ever built without it under a hash that left it out.
 */
const OPENAPI_DOCUMENT = 'generated/openapi.json';

/**
 * Everything a function bundle is built from: the source folders its entry can import from, the
 * documents two functions serve, the lockfile (every package version, esbuild's included) and this file (the settings above).
 * infra/bundle-size.test.ts fails if a bundle takes a file from outside them.
 */
export const BUNDLE_INPUTS = [
  'lib',
  'functions',
  // Served as they are by the openApiDocument and listEventTypes functions.
  OPENAPI_DOCUMENT,
  'generated/event-types.json',
  // What the outbox checks every event against (lib/events/feed/event-check.ts).
  'generated/event-data-schemas.json',
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
  for (const input of BUNDLE_INPUTS)
    if (input !== OPENAPI_DOCUMENT || existsSync(resolve(root, input))) add(resolve(root, input));
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

/**
 * One esbuild run that bundles each entry to `<outdir>/<dir>/index.mjs`: the modules the functions
 * share, the AWS SDK most of all, are parsed once instead of once per function (about 8 times faster
 * than a run per function). Each entry is still bundled on its own (no code splitting), byte for
 * byte what a run of that entry alone makes (infra/bundle-size.test.ts compares one).
 */
const oneRun = (outdir: string, dirs: ReadonlyMap<string, string>): BuildOptions => ({
  ...esbuildOptions,
  entryPoints: Object.fromEntries([...dirs].map(([dir, entry]) => [`${dir}/index`, resolve(root, entry)])),
  outdir,
  outExtension: { '.js': '.mjs' },
});

/**
 * Every function bundled in one run, as `cdk synth` builds them (buildAll below), each in
 * `<outDir>/<name>/`: for the size test, which needs each bundle's bytes and inputs.
 */
export async function bundleAllFunctions(outDir: string): Promise<Map<string, Bundled>> {
  await writeOpenApiDocument();
  const dirs = new Map(allFunctions().map((f) => [f.name, f.entry]));
  const { metafile } = await build({ ...oneRun(outDir, dirs), metafile: true });
  const bundles = new Map<string, Bundled>();
  for (const [path, output] of Object.entries(metafile.outputs)) {
    const file = resolve(path);
    const name = relative(outDir, dirname(file));
    if (!dirs.has(name) || !file.endsWith('index.mjs')) continue;
    // The metafile names inputs relative to the working directory.
    const inputs = Object.keys(output.inputs).map((input) => resolve(input));
    bundles.set(name, { file, bytes: statSync(file).size, mapFile: `${file}.map`, inputs });
  }
  return bundles;
}

/** Where this process's one esbuild run of every function left each bundle, by entry. */
let built: Map<string, string> | undefined;

/**
 * Bundles every function in one esbuild run (oneRun), beside CDK's `outputDir` so each bundle can
 * be moved into place with its source map's relative paths unchanged. Whatever this synth does not
 * claim is removed when the process exits.
 */
function buildAll(outputDir: string, entry: string): Map<string, string> {
  if (built) return built;
  const base = dirname(outputDir);
  const entries = [...new Set([...allFunctions().map((f) => f.entry), entry])];
  const dirOf = new Map(entries.map((e, i) => [e, join(base, `.bundle-${process.pid}-${i}`)]));
  buildSync(oneRun(base, new Map(entries.map((e) => [relative(base, dirOf.get(e)!), e]))));
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
          for (const file of ['index.mjs', 'index.mjs.map'])
            if (existsSync(join(dir, file))) renameSync(join(dir, file), join(outputDir, file));
          rmSync(dir, { recursive: true, force: true });
          return true;
        },
      },
    },
  });
}

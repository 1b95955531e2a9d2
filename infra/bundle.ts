import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Code, Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BuildOptions, build, buildSync, version as esbuildVersion, type Metafile } from 'esbuild';
import { routes, socketRoutes, workers } from '../lib/routes.ts';
import { OPENAPI_HANDLER, writeOpenApiDocument } from '../local/openapi-document.ts';
import { assetHashes, type HashSettings, importClosure, lockedPackages } from './asset-hash.ts';

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
 * The rule since it was set: 10 % headroom over the largest function. It was 80 KB when the largest
 * was retryDelivery at floor + 71 KB; on 2026-12-03 the webhook handshake (verifyWebhook: its
 * per-account limit, its answer sealed under Idempotency-Key, KMS calls with the SDK's retries)
 * reached floor + 82.0 KB after this round cut 3.2 KB from every function (key builders one export
 * each, zod's messages without its locale, fetch for the rare AWS calls), so the same rule gives
 * 90 KB: 8 KB of room, about ten features of the size this round's were. docs/cost.md ("Bundle
 * budget") lists the next cuts already found (about 3.5 KB of every function).
 */
export const BUNDLE_OVER_FLOOR_BYTES = 90 * 1024;

/**
 * The authorizer's own budget over the floor (bytes), tighter: it runs before every cold request of
 * every keyed route. It bundles the route table for the portal rows (lib/http/authorizer-policy.ts),
 * and the table no longer carries the routes' words and examples (lib/route-docs.ts): floor +
 * 40,203 bytes with them, floor + 19,526 without (2026-12-03). 22 KB keeps about 15 % headroom.
 */
export const AUTHORIZER_OVER_FLOOR_BYTES = 22 * 1024;

/** Module replacements inside the bundles only: parts of the SDK no function runs (each file says why). */
const ALIAS_TARGETS: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': 'lib/aws/env-credentials.ts',
  '@smithy/core/event-streams': 'lib/aws/no-event-streams.ts',
  'mnemonist/lru-cache': 'lib/aws/small-lru.ts',
  '@aws/lambda-invoke-store': 'lib/aws/no-invoke-store.ts',
  '@smithy/core/checksum': 'lib/aws/node-checksums.ts',
  '@aws-sdk/signature-v4-multi-region': 'lib/aws/single-region-signer.ts',
};

const aliasFrom = (base: string): Record<string, string> =>
  Object.fromEntries(Object.entries(ALIAS_TARGETS).map(([name, file]) => [name, resolve(base, file)]));

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
  alias: aliasFrom(root),
};

/**
 * BUNDLING as esbuild options for a checkout at `base` (this one, or the scratch copy of the asset
 * hash test): an ES module `index.mjs` (handler `index.handler`), paths in the metafile relative to `base`.
 */
const esbuildOptionsFor = (base: string): BuildOptions => ({
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
  alias: aliasFrom(base),
  absWorkingDir: base,
  logLevel: 'error',
});

const esbuildOptions = esbuildOptionsFor(root);

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
  // The metafile names inputs relative to absWorkingDir.
  const inputs = Object.keys(result.metafile.inputs).map((input) => resolve(root, input));
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

/** The floor plus `source` (a module importing from the repository root), bundled like the functions: what that code adds to one. */
export const bundleOverFloor = (source: string, outDir: string): Promise<Bundled> =>
  bundle({ contents: `${FLOOR_SOURCE}\n${source}` }, outDir, 'none');

/**
 * Every file a function bundle may be built from: the source folders its entry can import from,
 * the documents functions serve as data (the OpenAPI document is a build artifact the CDK app
 * writes before it bundles: infra/app.ts), the lockfile, the compiler options esbuild reads and the
 * bundling code. A hash of their contents keys the cache of asset hashes (assetHashCache below):
 * the same sources give the same metafile. infra/bundle-size.test.ts fails if a bundle imports a
 * file outside them or node_modules.
 */
export const BUNDLE_INPUTS = [
  'lib',
  'functions',
  'generated/openapi.json',
  'generated/event-types.json',
  // What the outbox checks every event against (lib/events/feed/event-check.ts).
  'generated/event-data-schemas.json',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'infra/bundle.ts',
  'infra/asset-hash.ts',
] as const;

/** A hash of BUNDLE_INPUTS' contents (paths and bytes) and the entries: a few hundred small files. */
function sourcesFingerprint(entries: readonly string[]): string {
  const hash = createHash('sha256').update(`${esbuildVersion}\0${entries.join('\0')}`);
  const add = (path: string): void => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) add(join(path, name));
    } else {
      hash.update(`\0${relative(root, path)}\0`).update(readFileSync(path));
    }
  };
  for (const input of BUNDLE_INPUTS) add(resolve(root, input));
  return hash.digest('hex');
}

/**
 * The settings a function's asset hash covers besides its inputs: esbuild's version and every
 * option, with the alias targets named from the root so that every checkout hashes alike.
 */
export const hashSettings = (base: string): HashSettings => ({
  root: base,
  esbuild: {
    version: esbuildVersion,
    options: { ...esbuildOptionsFor(base), alias: ALIAS_TARGETS, absWorkingDir: '.' },
  },
  locked: lockedPackages(base),
});

/** Each entry's bundle (`index.mjs`) and its asset hash, from one esbuild run in memory (oneRun). */
export interface FunctionsBuild {
  hashes: Map<string, string>;
  /** Each entry's files (`index.mjs`, and its map when BUNDLING ships one), by name. */
  bundles: Map<string, Array<{ name: string; contents: Uint8Array }>>;
  metafile: Metafile;
}

/** Builds `entries` of the checkout at `base` in one run without writing, and hashes each from the metafile. */
export function buildFunctions(entries: readonly string[], base = root): FunctionsBuild {
  const dirOf = new Map(entries.map((entry, i) => [entry, `f${i}`]));
  const outdir = join(base, '.bundles');
  const { metafile, outputFiles } = buildSync({
    ...oneRun(base, outdir, new Map([...dirOf].map(([entry, dir]) => [dir, entry]))),
    metafile: true,
    write: false,
  });
  const bundles = new Map(
    [...dirOf].map(([entry, dir]) => [
      entry,
      outputFiles
        .filter((f) => dirname(f.path) === join(outdir, dir))
        .map((f) => ({ name: relative(join(outdir, dir), f.path), contents: f.contents })),
    ]),
  );
  for (const [entry, files] of bundles)
    if (!files.some((f) => f.name === 'index.mjs')) throw new Error(`esbuild made no bundle of ${entry}`);
  return { hashes: assetHashes(metafile, entries, hashSettings(base)), bundles, metafile };
}

/**
 * Asset hashes already computed for these very sources (sourcesFingerprint), by any process: the
 * infra tests synthesize in many processes and `npm run synth` twice per CI run, and each would
 * otherwise parse every function's imports again (seconds) for the same answer.
 */
const assetHashCache = (fingerprint: string): string =>
  join(tmpdir(), 'template-marketplace-asset-hashes', `${fingerprint}.json`);

let thisBuild: FunctionsBuild | undefined;
let hashes: Map<string, string> | undefined;

/** Every function's entry and `extra` (an entry synth was asked for that is not in the route table). */
const entriesWith = (extra: string): string[] => [...new Set([...allFunctions().map((f) => f.entry), extra])].sort();

/** This process's one build of every function, made when first needed (a hash not cached, or a bundle). */
function functionsBuild(entries: readonly string[]): FunctionsBuild {
  if (!thisBuild || entries.some((e) => !thisBuild!.bundles.has(e))) thisBuild = buildFunctions(entries);
  return thisBuild;
}

/** A function's asset hash (infra/asset-hash.ts), from the cache when these sources were hashed before. */
export function bundleAssetHash(entry: string): string {
  const known = hashes?.get(entry);
  if (known) return known;
  const entries = entriesWith(entry);
  const cache = assetHashCache(sourcesFingerprint(entries));
  if (existsSync(cache)) {
    hashes = new Map(Object.entries(JSON.parse(readFileSync(cache, 'utf8')) as Record<string, string>));
  } else {
    hashes = functionsBuild(entries).hashes;
    mkdirSync(dirname(cache), { recursive: true });
    // One small file per state of the sources: those a day old are of sources long since edited.
    for (const name of readdirSync(dirname(cache))) {
      const old = join(dirname(cache), name);
      if (Date.now() - statSync(old).mtimeMs > 86_400_000) rmSync(old, { force: true });
    }
    // Written whole, then renamed: a process reading it beside this one never sees half of it.
    const partial = `${cache}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(Object.fromEntries(hashes)));
    renameSync(partial, cache);
  }
  return hashes.get(entry)!;
}

/**
 * One esbuild run that bundles each entry to `<outdir>/<dir>/index.mjs`: the modules the functions
 * share, the AWS SDK most of all, are parsed once instead of once per function (about 8 times faster
 * than a run per function). Each entry is still bundled on its own (no code splitting), byte for
 * byte what a run of that entry alone makes (infra/bundle-size.test.ts compares one).
 */
const oneRun = (base: string, outdir: string, dirs: ReadonlyMap<string, string>): BuildOptions => ({
  ...esbuildOptionsFor(base),
  // Named from the root, as the metafile names them.
  entryPoints: Object.fromEntries([...dirs].map(([dir, entry]) => [`${dir}/index`, entry])),
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
  const { metafile } = await build({ ...oneRun(root, outDir, dirs), metafile: true });
  const bundles = new Map<string, Bundled>();
  for (const path of Object.keys(metafile.outputs)) {
    const file = resolve(root, path);
    const name = relative(outDir, dirname(file));
    if (!dirs.has(name) || !file.endsWith('index.mjs')) continue;
    // Every module it imports, a tree-shaken one too (what its asset hash covers), from the root.
    const inputs = importClosure(metafile, dirs.get(name)!).map((input) => resolve(root, input));
    bundles.set(name, { file, bytes: statSync(file).size, mapFile: `${file}.map`, inputs });
  }
  return bundles;
}

/**
 * A function's code for CDK: the bundle of `entry`, under the hash of its own inputs
 * (bundleAssetHash). CDK bundles only when `cdk.out/asset.<hash>` is missing, so a synth after a
 * change writes the bundles of the functions it touched and reuses every other; the first bundle a
 * synth needs builds every function at once (functionsBuild), in memory.
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
          for (const file of functionsBuild(entriesWith(entry)).bundles.get(entry)!)
            writeFileSync(join(outputDir, file.name), file.contents);
          return true;
        },
      },
    },
  });
}

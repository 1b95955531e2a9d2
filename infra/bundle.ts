import { build } from 'esbuild';
import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { routes, workers } from '../lib/routes.ts';
import { BUNDLING } from './lambda-function.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Every function the stack deploys: name and entry module. */
export const allFunctions = (): Array<{ name: string; entry: string }> => [
  ...routes.map((r) => ({ name: r.name, entry: r.handler })),
  ...Object.entries(workers).map(([name, entry]) => ({ name, entry })),
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
 * Source maps as a bundle may carry them: `linked` = a .map file beside the bundle and a
 * `sourceMappingURL` comment (what `sourceMap: true` ships), `external` = the .map file only (the
 * code is byte for byte the unmapped bundle's; scripts/map-stack-trace.ts), `none` = no map.
 */
export type SourceMaps = 'linked' | 'external' | 'none';

/** The source maps the deployed functions ship (infra/lambda-function.ts). */
export const DEPLOYED_SOURCE_MAPS: SourceMaps = BUNDLING.sourceMap ? 'linked' : 'none';

interface Bundled {
  file: string;
  bytes: number;
  /** The source map's path (absent on disk for `none`). */
  mapFile: string;
}

async function bundle(entry: { path: string } | { contents: string }, outDir: string, maps: SourceMaps): Promise<Bundled> {
  const file = join(outDir, 'index.mjs');
  await build({
    ...('path' in entry ? { entryPoints: [resolve(root, entry.path)] } : { stdin: { contents: entry.contents, resolveDir: root, loader: 'ts', sourcefile: 'floor.ts' } }),
    outfile: file,
    bundle: true,
    platform: 'node',
    target: BUNDLING.target,
    format: 'esm',
    minify: BUNDLING.minify,
    sourcemap: maps === 'none' ? false : maps,
    sourcesContent: BUNDLING.sourcesContent,
    mainFields: BUNDLING.mainFields,
    external: BUNDLING.externalModules,
    banner: { js: BUNDLING.banner },
    alias: BUNDLING.alias,
    logLevel: 'error',
  });
  return { file, bytes: statSync(file).size, mapFile: `${file}.map` };
}

/**
 * Bundles one entry exactly as `cdk synth` does (the same esbuild options as infra/lambda-function.ts),
 * for the size test, the cold-start bench and the stack-trace mapper; `maps` other than the
 * deployed setting is for comparing. Returns the bundle's and its source map's paths and its size.
 */
export const bundleFunction = (entry: string, outDir: string, maps: SourceMaps = DEPLOYED_SOURCE_MAPS): Promise<Bundled> => bundle({ path: entry }, outDir, maps);

/** The floor (above), bundled like the functions. */
export const bundleFloor = (outDir: string, maps: SourceMaps = DEPLOYED_SOURCE_MAPS): Promise<Bundled> => bundle({ contents: FLOOR_SOURCE }, outDir, maps);

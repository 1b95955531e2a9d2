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

/** The most a function's minified bundle may weigh (bytes): the import is most of a cold start. */
export const BUNDLE_BUDGET_BYTES = 250 * 1024;

/**
 * Bundles one entry exactly as `cdk synth` does (the same esbuild options as infra/lambda-function.ts),
 * for the size test and the cold-start bench. Returns the bundle's and its source map's paths and sizes.
 */
export async function bundleFunction(entry: string, outDir: string): Promise<{ file: string; bytes: number; mapFile: string }> {
  const file = join(outDir, 'index.mjs');
  await build({
    entryPoints: [resolve(root, entry)],
    outfile: file,
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
  });
  return { file, bytes: statSync(file).size, mapFile: `${file}.map` };
}

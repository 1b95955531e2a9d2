/**
 * Maps a deployed function's minified stack trace back to the source, offline:
 * `npm run --silent map-stack-trace -- <function> < trace.txt` (or a file as the second argument).
 * The functions ship without source maps (infra/lambda-function.ts: they cost every cold start);
 * esbuild's output is the same for the same sources and options, so this rebuilds the function's
 * bundle with an external map from the checkout (check out the deployed commit first) and rewrites
 * every `index.mjs:<line>:<column>` in the text as `<source>:<line>:<column>`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allFunctions, bundleFunction } from '../infra/bundle.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Rewrites the bundle positions in `text` with `map`; positions it cannot map are left as they are. */
export function mapStackTrace(text: string, map: SourceMapPayload): string {
  const sourceMap = new SourceMap(map);
  // The bundle's path as Lambda's runtime shows it (file:///var/task/index.mjs) or any other folder.
  return text.replace(/(?:[^\s()]*\/)?index\.mjs:(\d+):(\d+)/g, (whole, line: string, column: string) => {
    // Stack traces count lines and columns from 1, source maps from 0.
    const entry = sourceMap.findEntry(Number(line) - 1, Number(column) - 1);
    if (!('originalSource' in entry) || !entry.originalSource) return whole;
    return `${entry.originalSource}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}

/** A map file with its sources named from the repository's root (esbuild names them from the map's folder). */
export function readSourceMap(mapFile: string): SourceMapPayload {
  const map = JSON.parse(readFileSync(mapFile, 'utf8')) as SourceMapPayload;
  return { ...map, sources: map.sources.map((s) => relative(root, resolve(dirname(mapFile), s))) };
}

/** The source map of `name`'s bundle as the checkout builds it. */
export async function sourceMapOf(name: string): Promise<SourceMapPayload> {
  const fn = allFunctions().find((f) => f.name === name);
  if (!fn)
    throw new Error(
      `Unknown function "${name}"; one of: ${allFunctions()
        .map((f) => f.name)
        .join(', ')}`,
    );
  const dir = mkdtempSync(join(tmpdir(), 'map-stack-'));
  try {
    const { mapFile } = await bundleFunction(fn.entry, dir, 'external');
    return readSourceMap(mapFile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const [name, file] = process.argv.slice(2);
  if (!name) {
    process.stderr.write(
      'usage: npm run --silent map-stack-trace -- <function> [trace.txt] (the trace on stdin without a file)\n',
    );
    process.exit(1);
  }
  const text = readFileSync(file ?? 0, 'utf8');
  process.stdout.write(mapStackTrace(text, await sourceMapOf(name)));
}

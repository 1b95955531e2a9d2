/**
 * `npm run bench [area…]`: runs each benchmark module (bench/<area>.ts exporting `run()`), prints
 * its Markdown section, and writes it into docs/benchmarks.md between that area's markers as soon
 * as the area is done (bench/_doc-sections.ts). Every figure is a ratio against a baseline
 * measured in the same run.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeBenchSection } from './_doc-sections.ts';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);

/** The bench areas: bench/<area>.ts, helpers (`_…`) and this file aside. */
export const benchAreas = (): string[] =>
  readdirSync(here)
    .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
    .map((f) => f.replace(/\.ts$/, ''))
    .sort();

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.env['LOG_LEVEL'] ??= 'silent';
  for (const name of benchAreas().filter((area) => wanted.length === 0 || wanted.includes(area))) {
    const mod = (await import(pathToFileURL(join(here, `${name}.ts`)).href)) as { run?: () => Promise<string> };
    if (typeof mod.run !== 'function') continue;
    process.stderr.write(`bench: ${name}…\n`);
    let section: string;
    try {
      section = await mod.run();
    } catch (err) {
      // One sentence naming the area and what failed (bench/_http.ts names the request), then the stack.
      process.stderr.write(`bench: ${name} failed: ${(err as Error).message}\n${(err as Error).stack ?? ''}\n`);
      process.exit(1);
    }
    if (!section) continue; // an area that runs only when named
    console.log(section);
    writeBenchSection(name, section);
    process.stderr.write(`bench: ${name} written to docs/benchmarks.md\n`);
  }
  process.exit(0);
}

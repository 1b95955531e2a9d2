/**
 * `npm run bench [area…]`: runs each benchmark module (bench/<area>.ts exporting `run()`), prints
 * its Markdown section, and writes them all to bench/results.md for the README.
 * Every figure is a ratio against a baseline measured in the same run.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const modules = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => f.replace(/\.ts$/, ''))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

process.env['LOG_LEVEL'] ??= 'silent';
const sections: string[] = [];
for (const name of modules) {
  const mod = (await import(pathToFileURL(join(here, `${name}.ts`)).href)) as { run?: () => Promise<string> };
  if (typeof mod.run !== 'function') continue;
  process.stderr.write(`bench: ${name}…\n`);
  const section = await mod.run();
  if (!section) continue; // an area that runs only when named
  console.log(section);
  sections.push(section);
}
writeFileSync(join(here, 'results.md'), `<!-- written by npm run bench on ${new Date().toISOString()} -->\n\n${sections.join('\n\n')}\n`);
process.exit(0);

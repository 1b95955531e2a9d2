/**
 * `npm run bench -- search-scale`: search at 100,000 templates, against the 1,000-template catalog
 * of the same generator measured in the same run (interleaved, as in bench/marketplace.ts), to show
 * how the cost grows: one word in each sort, and two words that often meet and that never meet.
 * The large catalog is seeded once and kept in a data folder (`.bench-data/`, git-ignored;
 * SEARCH_SCALE_DATA_DIR to move it) for later runs (bench/_kept-catalog.ts). Runs only when named:
 * `npm run bench` alone skips it.
 */
import { join } from 'node:path';
import { growCatalog } from './_marketplace-seed.ts';
import { openKept, scratchFolder, seedFolder, type SeedMark } from './_kept-catalog.ts';
import { emptySamples, fmt, list, phase, ratio, readPartitions, startSide, summarize, type Case, type Measured, type Side } from './marketplace.ts';
import { rmSync } from 'node:fs';

const SIZE = Number(process.env['SEARCH_SCALE_SIZE'] ?? 100_000);
const BASELINE = 1000;
const KEPT = process.env['SEARCH_SCALE_DATA_DIR'] ?? join(import.meta.dirname, '..', '.bench-data', `search-${SIZE}`);

const CASES: Case[] = [
  { route: 'listTemplates', variant: 'search=uptime (popular)', request: list({ search: 'uptime' }), expect: 200 },
  { route: 'listTemplates', variant: 'search=uptime, sort=rating', request: list({ search: 'uptime', sort: 'rating' }), expect: 200 },
  { route: 'listTemplates', variant: 'search=uptime, sort=recent', request: list({ search: 'uptime', sort: 'recent' }), expect: 200 },
  { route: 'listTemplates', variant: 'search=uptime monitor', request: list({ search: 'uptime monitor' }), expect: 200 },
  { route: 'listTemplates', variant: 'search=uptime invoice (never together)', request: list({ search: 'uptime invoice' }), expect: 200 },
];

export async function run(): Promise<string> {
  if (!process.argv.includes('search-scale')) return '';
  const began = performance.now();
  process.env['AWS_REGION'] ??= 'us-east-1';
  process.env['TABLE_NAME'] = 'bench-marketplace';
  const partitions = [...readPartitions(CASES)].sort();
  const seed = (size: number) => (side: Side, now: number) => growCatalog(side.catalog, size, now, new Set(partitions));
  // Both sizes run the same kind of process: DynamoDB Local over a data folder in tmpfs.
  const scratch = scratchFolder(`search-scale-${SIZE}`);
  const sides: Side[] = [];
  try {
    const large = await openKept(KEPT, join(scratch, 'large'), { size: SIZE, partitions }, seed(SIZE));
    sides.push(large.side);
    process.stderr.write(`bench: search-scale ${SIZE} templates ${large.reused ? 'reused' : `seeded in ${fmt(large.mark.seconds, 0)} s`}\n`);
    // The small catalog from the large one's `now`: the same first templates.
    const smallDir = join(scratch, 'small');
    const small: SeedMark = await seedFolder(smallDir, { size: BASELINE, partitions, now: large.mark.now }, (side) => seed(BASELINE)(side, large.mark.now));
    sides.unshift(await startSide(BASELINE, smallDir));
    const samples = new Map(CASES.map((c) => [c, sides.map(emptySamples)]));
    const t1 = performance.now();
    await phase(sides, CASES, samples);
    const measureSeconds = (performance.now() - t1) / 1000;
    const rows = [...samples].map(([c, perSide]) => {
      const [s, l] = perSide.map(summarize) as [Measured, Measured];
      // "(end)" marks the size whose answer finished the result where the other's has more.
      const end = (m: Measured) => (s.more !== l.more && m.more === false ? ' (end)' : '');
      return `| ${c.variant} | ${s.items}${end(s)} / ${l.items}${end(l)} | ${s.total} / ${l.total} | ${fmt(s.itemsRead)} / ${fmt(l.itemsRead)} | ${fmt(s.read)} | ${fmt(l.read)} | ${ratio(s.read, l.read)} | ${fmt(s.p50)} / ${fmt(s.p99)} | ${fmt(l.p50)} / ${fmt(l.p99)} | ${ratio(s.p50, l.p50)} |`;
    });
    const size = SIZE.toLocaleString('en');
    const base = BASELINE.toLocaleString('en');
    const seeded = `seeded in ${fmt(large.mark.seconds, 0)} s (${fmt(SIZE / large.mark.seconds, 0)} templates/s) ${large.reused ? 'by an earlier run on ' + new Date(large.mark.now).toISOString().slice(0, 10) + ' and reused' : 'by this run'}`;
    return [
      `### Search at ${size} templates`,
      '',
      `Search at ${base} and ${size} templates, the same generator and method as the marketplace table (interleaved runs, own DynamoDB Local per size, same JVM options); both processes run over a data folder in tmpfs. The ${size}-template catalog was ${seeded}; the ${base} one in ${fmt(small.seconds, 0)} s. Measuring took ${fmt(measureSeconds, 0)} s, the whole run ${fmt((performance.now() - began) / 1000, 0)} s.`,
      '',
      `| Variant | Items | Total | Items read | Capacity @ ${base} | Capacity @ ${size} | Capacity ratio | Latency @ ${base} | Latency @ ${size} | p50 ratio |`,
      '|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n');
  } finally {
    await Promise.all(sides.map((s) => s.dynamo.stop()));
    rmSync(scratch, { recursive: true, force: true });
  }
}

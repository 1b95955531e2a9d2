/**
 * `npm run bench -- search-scale`: search at 100,000 templates against 1,000 and 20,000 of the same
 * generator, measured in the same run (interleaved, as in bench/marketplace.ts), to show how the
 * cost grows: one word in each sort, and two words that often meet and that never meet. The
 * largest catalog is seeded once and kept in a data folder (`.bench-data/`, git-ignored;
 * SEARCH_SCALE_DATA_DIR to move it) for later runs (bench/_kept-catalog.ts); the smaller ones are
 * seeded on every run from the kept one's `now`, so they are its first templates. Runs only when
 * named: `npm run bench` alone skips it.
 */
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { recordIndexFormat } from '../lib/marketplace/search/reindex.ts';
import { openKept, type SeedMark, scratchFolder, seedFolder } from './_kept-catalog.ts';
import { growCatalog } from './_marketplace-seed.ts';
import {
  type Case,
  emptySamples,
  fmt,
  list,
  type Measured,
  phase,
  ratio,
  readPartitions,
  type Samples,
  type Side,
  startSide,
  summarize,
  use,
} from './marketplace.ts';

/** SEARCH_SCALE_SIZES=1000,2000 for a quick try; the last size is the kept one. */
const SIZES = (process.env['SEARCH_SCALE_SIZES'] ?? '1000,20000,100000').split(',').map(Number);
const LARGEST = SIZES.at(-1)!;
const KEPT =
  process.env['SEARCH_SCALE_DATA_DIR'] ?? join(import.meta.dirname, '..', '.bench-data', `search-${LARGEST}`);

const CASES: Case[] = [
  { route: 'listTemplates', variant: 'search=uptime (popular)', request: list({ search: 'uptime' }), expect: 200 },
  {
    route: 'listTemplates',
    variant: 'search=uptime, sort=rating',
    request: list({ search: 'uptime', sort: 'rating' }),
    expect: 200,
  },
  {
    route: 'listTemplates',
    variant: 'search=uptime, sort=recent',
    request: list({ search: 'uptime', sort: 'recent' }),
    expect: 200,
  },
  {
    route: 'listTemplates',
    variant: 'search=uptime monitor',
    request: list({ search: 'uptime monitor' }),
    expect: 200,
  },
  {
    route: 'listTemplates',
    variant: 'search=uptime invoice (never together)',
    request: list({ search: 'uptime invoice' }),
    expect: 200,
  },
];

/** The posting partitions the measured searches read: the only ones the seed writes. */
export const searchScalePartitions = (): string[] => [...readPartitions(CASES)].sort();

const count = (n: number) => n.toLocaleString('en');
const seconds = (began: number) => (performance.now() - began) / 1000;

export async function run(): Promise<string> {
  if (!process.argv.includes('search-scale')) return '';
  const began = performance.now();
  const load = [loadavg()[0]!];
  process.env['AWS_REGION'] ??= 'us-east-1';
  process.env['TABLE_NAME'] = 'bench-marketplace';
  const partitions = searchScalePartitions();
  const seed = (size: number) => (side: Side, now: number) => growCatalog(side.catalog, size, now, new Set(partitions));
  // Every size runs the same kind of process: DynamoDB Local over a data folder in tmpfs.
  const scratch = scratchFolder(`search-scale-${LARGEST}`);
  const sides: Side[] = [];
  try {
    const large = await openKept(KEPT, join(scratch, `${LARGEST}`), { size: LARGEST, partitions }, seed(LARGEST));
    sides.push(large.side);
    // A kept catalog seeded before its folder recorded the index format: the seed's builders are the current ones
    // (a folder seeded without word pairs has other partitions, and is seeded again).
    use(large.side);
    await recordIndexFormat();
    process.stderr.write(
      `bench: search-scale ${LARGEST} templates ${large.reused ? 'reused' : `seeded in ${fmt(large.mark.seconds, 0)} s`}\n`,
    );
    const marks: SeedMark[] = [];
    for (const size of SIZES.slice(0, -1)) {
      const dir = join(scratch, `${size}`);
      const { now } = large.mark;
      marks.push(await seedFolder(dir, { size, partitions, now }, (side) => seed(size)(side, now)));
      sides.splice(sides.length - 1, 0, await startSide(size, dir));
    }
    marks.push(large.mark);
    const samples = new Map(CASES.map((c) => [c, sides.map(emptySamples)]));
    const t1 = performance.now();
    load.push(loadavg()[0]!);
    await phase(sides, CASES, samples);
    load.push(loadavg()[0]!);
    return report(samples, marks, large.reused ? large.mark.now : undefined, seconds(t1), seconds(began), load);
  } finally {
    await Promise.all(sides.map((s) => s.dynamo.stop()));
    rmSync(scratch, { recursive: true, force: true });
  }
}

function report(
  samples: Map<Case, Samples[]>,
  marks: SeedMark[],
  reusedFrom: number | undefined,
  measureSeconds: number,
  totalSeconds: number,
  load: number[],
): string {
  const smaller = SIZES.slice(0, -1);
  const all = (measured: Measured[], cell: (m: Measured) => string) => measured.map(cell).join(' / ');
  const rows = [...samples].map(([c, perSide]) => {
    const measured = perSide.map(summarize);
    const large = measured.at(-1)!;
    // "(end)" marks a size whose answer finished the result where the largest's has more.
    const items = all(measured, (m) => `${m.items}${m.more === false && large.more !== false ? ' (end)' : ''}`);
    const ratios = (value: (m: Measured) => number) =>
      smaller.map((_, i) => ratio(value(measured[i]!), value(large))).join(' | ');
    return `| ${c.variant} | ${items} | ${all(measured, (m) => m.total ?? '–')} | ${all(measured, (m) => fmt(m.itemsRead))} | ${all(measured, (m) => fmt(m.read))} | ${ratios((m) => m.read)} | ${all(measured, (m) => fmt(m.p50))} | ${all(measured, (m) => fmt(m.p99))} | ${ratios((m) => m.p50)} |`;
  });
  const sizes = SIZES.map(count).join(' / ');
  const largest = count(LARGEST);
  const versus = smaller.map((s) => `${largest} : ${count(s)}`);
  const cpu = (m: SeedMark) =>
    m.cpu ? `, CPU ${fmt(m.cpu.jvm, 0)} s in the JVM and ${fmt(m.cpu.node, 0)} s in Node` : '';
  const seeded = marks
    .map((m) => `${count(m.size)} in ${fmt(m.seconds, 0)} s (${fmt(m.size / m.seconds, 0)}/s${cpu(m)})`)
    .join(', ');
  return [
    `### Search at ${largest} templates`,
    '',
    `Search at ${sizes} templates, the same generator and method as the marketplace table (interleaved runs with the order of the sizes rotated, own DynamoDB Local per size, same JVM options), every process over a data folder in tmpfs. Seeded ${seeded}${reusedFrom === undefined ? '' : `; the ${largest} by an earlier run (${new Date(reusedFrom).toISOString().slice(0, 10)}) and reused`}. Cells with several figures give them at ${sizes}. Items read: what the request's reads went through (a query's scanned items, the templates it got), per request. Read units per request as DynamoDB reports them; latency in ms, nearest rank. Measuring took ${fmt(measureSeconds, 0)} s, the whole run ${fmt(totalSeconds, 0)} s; the machine's 1-minute load average (2 cores, shared) was ${load.map((l) => fmt(l)).join(', ')} at the start, before and after measuring.`,
    '',
    `| Variant | Items | Total | Items read | Read units | Capacity ratio ${versus.join(' | Capacity ratio ')} | p50 | p99 | p50 ratio ${versus.join(' | p50 ratio ')} |`,
    `|---|---|---|---|---|${versus.map(() => '---|').join('')}---|---|${versus.map(() => '---|').join('')}`,
    ...rows,
  ].join('\n');
}

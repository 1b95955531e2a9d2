/**
 * `npm run bench -- search-scale`: one-word search in each sort at 100,000 templates, against the
 * 1,000-template catalog of the same generator measured in the same run (interleaved, as in
 * bench/marketplace.ts), to show how the cost grows. The large catalog is seeded once into a data
 * folder (`.bench-data/`, git-ignored; SEARCH_SCALE_DATA_DIR to move it) and reused by later runs;
 * seeding 100,000 takes a long while. Runs only when named: `npm run bench` alone skips it.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { db, tableName } from '../lib/store/client.ts';
import { growCatalog } from './_marketplace-seed.ts';
import { fmt, list, phase, ratio, readPartitions, startSide, summarize, use, type Case, type Samples, type Side } from './marketplace.ts';

const SIZE = Number(process.env['SEARCH_SCALE_SIZE'] ?? 100_000);
const BASELINE = 1000;
const DATA_DIR = process.env['SEARCH_SCALE_DATA_DIR'] ?? join(import.meta.dirname, '..', '.bench-data', `search-${SIZE}`);
const SEEDED = { PK: 'BENCH#SEED', SK: 'DONE' };

const CASES: Case[] = [
  { route: 'listTemplates', variant: 'search=uptime (popular)', request: list({ search: 'uptime' }), expect: 200 },
  { route: 'listTemplates', variant: 'search=uptime, sort=rating', request: list({ search: 'uptime', sort: 'rating' }), expect: 200 },
  { route: 'listTemplates', variant: 'search=uptime, sort=recent', request: list({ search: 'uptime', sort: 'recent' }), expect: 200 },
];

/** Seeds the side's catalog unless its data folder already holds a finished seed of this size. */
async function seedOnce(side: Side, now: number): Promise<number | undefined> {
  use(side);
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: SEEDED }));
  if (Item?.['size'] === side.size) return undefined;
  const t0 = performance.now();
  await growCatalog(side.catalog, side.size, now, readPartitions(CASES));
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...SEEDED, size: side.size, seeded_at: new Date(now).toISOString() } }));
  return (performance.now() - t0) / 1000;
}

export async function run(): Promise<string> {
  if (!process.argv.includes('search-scale')) return '';
  process.env['AWS_REGION'] ??= 'us-east-1';
  process.env['TABLE_NAME'] = 'bench-marketplace';
  const sides: Side[] = [];
  try {
    sides.push(await startSide(BASELINE));
    let large: Side;
    try {
      large = await startSide(SIZE, DATA_DIR);
    } catch {
      // A folder left by an interrupted seed: start over.
      rmSync(DATA_DIR, { recursive: true, force: true });
      large = await startSide(SIZE, DATA_DIR);
    }
    sides.push(large);
    const now = Date.now();
    const seconds = [await seedOnce(sides[0]!, now), await seedOnce(large, now)];
    process.stderr.write(`bench: search-scale seeded ${seconds.map((s) => (s === undefined ? 'reused' : `${fmt(s, 0)} s`)).join(' / ')}\n`);
    const samples = new Map(CASES.map((c) => [c, sides.map((): Samples => ({ times: [], read: 0, write: 0 }))]));
    await phase(sides, CASES, samples);
    const rows = [...samples].map(([c, perSide]) => {
      const [s, l] = perSide.map(summarize);
      return `| ${c.variant} | ${s!.items} / ${l!.items} | ${s!.total} / ${l!.total} | ${fmt(s!.read)} | ${fmt(l!.read)} | ${ratio(s!.read, l!.read)} | ${fmt(s!.p50)} / ${fmt(s!.p99)} | ${fmt(l!.p50)} / ${fmt(l!.p99)} | ${ratio(s!.p50, l!.p50)} |`;
    });
    const size = SIZE.toLocaleString('en');
    return [
      `### Search at ${size} templates`,
      '',
      `One-word search in each sort at ${BASELINE.toLocaleString('en')} and ${size} templates, same generator and method as the table above (interleaved runs, own DynamoDB Local per size; the ${size}-template catalog lives in a data folder seeded ${seconds[1] === undefined ? 'by an earlier run and reused' : `in ${fmt(seconds[1], 0)} s`}).`,
      '',
      `| Variant | Items | Total | Capacity @ ${BASELINE.toLocaleString('en')} | Capacity @ ${size} | Capacity ratio | Latency @ ${BASELINE.toLocaleString('en')} | Latency @ ${size} | p50 ratio |`,
      '|---|---|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n');
  } finally {
    await Promise.all(sides.map((s) => s.dynamo.stop()));
  }
}

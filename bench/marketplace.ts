/**
 * `npm run bench -- marketplace`: what each marketplace request costs at 1,000 and at 20,000
 * templates. Each size gets its own DynamoDB Local process holding one catalog in its first table,
 * seeded from the same deterministic generator (BatchWrite with the service's item builders). The
 * real Lambda handlers run with REST proxy events, alternating between the two sizes run by run
 * (small-large, then large-small), so machine noise, Node's JIT and GC hit both sizes alike.
 * Reports, per route and variant, the consumed capacity DynamoDB reports and p50/p99 latency.
 */
import { randomUUID } from 'node:crypto';
import type { Caller } from '../lib/core/caller.ts';
import { ORDERS, postingList } from '../lib/marketplace/search/search-index.ts';
import { drivingPrefix, words } from '../lib/marketplace/search/search-text.ts';
import { rollTrendWindow } from '../lib/marketplace/trending/trend-rollover.ts';
import { routes } from '../lib/routes.ts';
import { type CapacityMeter, meterCapacity } from '../lib/store/capacity-meter.ts';
import { db } from '../lib/store/client.ts';
import { ensureTable } from '../lib/store/create-table.ts';
import * as keys from '../lib/store/key-builders.ts';
import { type DynamoDbLocal, startDynamoDbLocal } from '../local/emulators/dynamodb-local.ts';
import { invokeRoute, proxyEvent } from '../local/gateway/proxy-event.ts';
import { freePort } from '../local/ports.ts';
import { type Catalog, emptyCatalog, growCatalog } from './_marketplace-seed.ts';
import { measureSearchIndexing } from './_search-indexing.ts';

/** MARKETPLACE_BENCH_SIZES=200,1000 for a quick try (it writes its table into docs/benchmarks.md too: do not commit that); the figures there use the default. */
const SIZES = (process.env['MARKETPLACE_BENCH_SIZES'] ?? '1000,20000').split(',').map(Number);
/** Runs per row and size; p99 is then the 2nd-slowest of 100 (MARKETPLACE_BENCH_RUNS to change). */
const RUNS = Number(process.env['MARKETPLACE_BENCH_RUNS'] ?? 100);
/** Warm-up runs per row and size before its phase is measured, not counted. */
const WARMUP = Number(process.env['MARKETPLACE_BENCH_WARMUP'] ?? 10);
/**
 * JVM options for both DynamoDB Local processes, the same for both sizes. The catalog lives in
 * SQLite's native memory, not the Java heap (its live set stays near 16 MB at either size, per
 * -Xlog:gc), so a fixed 1 GB heap gives both processes the same GC rhythm whatever traffic the
 * seed put through them. MARKETPLACE_BENCH_JVM overrides it ('' = the JVM's defaults).
 */
/** MARKETPLACE_BENCH_ONLY=search: only the rows whose variant starts so (and no search index section). */
const ONLY = process.env['MARKETPLACE_BENCH_ONLY'];
const wanted = (c: { variant: string }) => !ONLY || c.variant.startsWith(ONLY);
const JVM_OPTIONS = (process.env['MARKETPLACE_BENCH_JVM'] ?? '-Xms1g -Xmx1g').split(' ').filter(Boolean);

export interface Request {
  caller: Caller;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

export interface Case {
  route: string;
  variant: string;
  /** A fresh request per run (writes need a new user or slug each time). */
  request: (side: Side, run: number) => Request | Promise<Request>;
  expect: number;
  /** Writes change the catalog (new installs, reviews, templates): measured after every read. */
  writes?: boolean;
}

/** One catalog size: its own DynamoDB Local, client, capacity meter and catalog. */
export interface Side {
  size: number;
  dynamo: DynamoDbLocal;
  catalog: Catalog;
  meter: CapacityMeter;
  /** Page 2 of sort=recent, read once after seeding. */
  cursor?: string;
}

export const reader: Caller = {
  userId: randomUUID(),
  workspaceId: randomUUID(),
  name: 'Bench Reader',
  verified: false,
  operator: false,
};
const freshUser = (): Caller => ({ ...reader, userId: randomUUID(), workspaceId: randomUUID() });
export const list = (query: Record<string, string>) => () => ({ caller: reader, query });

const CASES: Case[] = [
  { route: 'listTemplates', variant: 'sort=popular (default)', request: list({}), expect: 200 },
  { route: 'listTemplates', variant: 'sort=recent', request: list({ sort: 'recent' }), expect: 200 },
  { route: 'listTemplates', variant: 'sort=rating', request: list({ sort: 'rating' }), expect: 200 },
  { route: 'listTemplates', variant: 'category=code, sort=popular', request: list({ category: 'code' }), expect: 200 },
  {
    route: 'listTemplates',
    variant: 'category=code, sort=recent',
    request: list({ category: 'code', sort: 'recent' }),
    expect: 200,
  },
  {
    route: 'listTemplates',
    variant: 'category=code, sort=rating',
    request: list({ category: 'code', sort: 'rating' }),
    expect: 200,
  },
  { route: 'listTemplates', variant: 'limit=100', request: list({ limit: '100' }), expect: 200 },
  { route: 'listTemplates', variant: 'offset=200', request: list({ offset: '200' }), expect: 200 },
  {
    route: 'listTemplates',
    variant: 'cursor (page 2, recent)',
    request: (s) => ({ caller: reader, query: { sort: 'recent', cursor: s.cursor! } }),
    expect: 200,
  },
  // Search in each sort (popular is the default), one word, 3 letters, two words that often meet,
  // within a category, deep in the list, and two words that never meet (every page walks its whole
  // budget, or the whole list if that is shorter).
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
  { route: 'listTemplates', variant: 'search=upt (3 letters)', request: list({ search: 'upt' }), expect: 200 },
  {
    route: 'listTemplates',
    variant: 'search=uptime monitor',
    request: list({ search: 'uptime monitor' }),
    expect: 200,
  },
  {
    route: 'listTemplates',
    variant: 'search=uptime monitor, sort=rating',
    request: list({ search: 'uptime monitor', sort: 'rating' }),
    expect: 200,
  },
  { route: 'listTemplates', variant: 'search=monitor daily', request: list({ search: 'monitor daily' }), expect: 200 },
  {
    route: 'listTemplates',
    variant: 'search=uptime, category=http',
    request: list({ search: 'uptime', category: 'http' }),
    expect: 200,
  },
  {
    route: 'listTemplates',
    variant: 'search=uptime, category=http, sort=rating',
    request: list({ search: 'uptime', category: 'http', sort: 'rating' }),
    expect: 200,
  },
  {
    route: 'listTemplates',
    variant: 'search=daily, offset=200',
    request: list({ search: 'daily', offset: '200' }),
    expect: 200,
  },
  {
    route: 'listTemplates',
    variant: 'search=hourly daily (never together)',
    request: list({ search: 'hourly daily' }),
    expect: 200,
  },
  {
    route: 'listTemplates',
    variant: 'search=uptime invoice (never together)',
    request: list({ search: 'uptime invoice' }),
    expect: 200,
  },
  { route: 'featuredTemplates', variant: '4 lists', request: () => ({ caller: reader }), expect: 200 },
  {
    route: 'getTemplate',
    variant: 'by id',
    request: (s) => ({ caller: reader, params: { id: s.catalog.sample!.id } }),
    expect: 200,
  },
  {
    route: 'getTemplate',
    variant: 'by slug',
    request: (s) => ({ caller: reader, params: { id: s.catalog.sample!.slug } }),
    expect: 200,
  },
  {
    route: 'listReviews',
    variant: 'limit=20',
    request: (s) => ({ caller: reader, params: { id: s.catalog.sample!.id } }),
    expect: 200,
  },
  { route: 'listCategories', variant: '', request: () => ({ caller: reader }), expect: 200 },
  { route: 'listInstalled', variant: '30 installs', request: (s) => ({ caller: s.catalog.installer }), expect: 200 },
  {
    route: 'installTemplate',
    variant: 'new workspace',
    request: (s) => ({ caller: freshUser(), params: { id: s.catalog.sample!.id } }),
    expect: 201,
    writes: true,
  },
  {
    route: 'createReview',
    variant: 'new reviewer',
    request: (s) => ({
      caller: freshUser(),
      params: { id: s.catalog.sample!.id },
      body: { rating: 4, title: 'Bench' },
    }),
    expect: 201,
    writes: true,
  },
  {
    route: 'publishTemplate',
    variant: 'public',
    request: () => ({
      caller: reader,
      body: {
        name: 'Bench uptime monitor',
        slug: `bench-${randomUUID().slice(0, 13)}`,
        description: 'Published during the benchmark.',
        category: 'http',
        version: '1.0.0',
        schema: { variables: [], checks: [] },
      },
    }),
    expect: 201,
    writes: true,
  },
];

export interface Samples {
  times: number[];
  read: number;
  write: number;
  /** Items the reads went through (CapacityMeter.itemsRead). */
  itemsRead: number;
  /** Items in the response's `data` (same at both sizes for a route that reads the same items). */
  items?: number;
  /** The response's `pagination.has_more`, where it has one. */
  more?: boolean;
  /** The response's `pagination.total` ("≤ n" when `total_exact` is false). */
  total?: string;
}

export interface Measured {
  read: number;
  write: number;
  itemsRead: number;
  p50: number;
  p99: number;
  items?: number;
  more?: boolean;
  total?: string;
}

export async function call(name: string, req: Request) {
  const route = routes.find((r) => r.name === name)!;
  const event = proxyEvent({
    route,
    caller: req.caller,
    pathParameters: req.params ?? null,
    query: req.query ?? null,
    headers: req.body ? { 'content-type': 'application/json' } : {},
    body: req.body ? JSON.stringify(req.body) : null,
  });
  return invokeRoute(route, event);
}

/**
 * The posting partitions the measured searches read (each search's driving list, in every order,
 * and its prefix's word pairs):
 * the seed writes only these, since no measured search reads any other, and seeding the whole
 * index (about 85 postings per template) would take an hour at 20,000 on this machine.
 */
export function readPartitions(cases: readonly Case[] = CASES): Set<string> {
  const partitions = new Set<string>();
  for (const c of cases) {
    const query = c.route === 'listTemplates' ? (c.request({} as Side, 0) as Request).query : undefined;
    if (!query?.['search']) continue;
    const prefix = drivingPrefix(words(query['search']))!;
    const list = postingList(prefix, query['category']);
    for (const order of ORDERS) partitions.add(keys.searchPostingPk(order, list));
    // A multi-word search first reads the driving prefix's word pairs (catalog-wide).
    partitions.add(keys.searchPairPk(prefix)).add(keys.searchWidePk(prefix));
  }
  return partitions;
}

/** Points the services (db(), which keeps one client per endpoint) at this size's DynamoDB Local. */
export const use = (side: Side) => (process.env['DYNAMODB_ENDPOINT'] = side.dynamo.endpoint);

async function once(side: Side, c: Case, run: number, into?: Samples): Promise<void> {
  use(side);
  const req = await c.request(side, run);
  side.meter.reset();
  const start = performance.now();
  const res = await call(c.route, req);
  const elapsed = performance.now() - start;
  if (res.statusCode !== c.expect)
    throw new Error(`${c.route} ${c.variant} @ ${side.size}: ${res.statusCode} ${res.body}`);
  if (!into) return;
  into.times.push(elapsed);
  into.read += side.meter.read;
  into.write += side.meter.write;
  into.itemsRead += side.meter.itemsRead;
  if (into.items === undefined) {
    const { data, pagination } = JSON.parse(res.body) as {
      data?: unknown;
      pagination?: { has_more?: boolean; total?: number; total_exact?: false };
    };
    if (Array.isArray(data)) into.items = data.length;
    if (pagination?.has_more !== undefined) into.more = pagination.has_more;
    if (pagination?.total !== undefined)
      into.total = `${pagination.total_exact === false ? '≤ ' : ''}${pagination.total.toLocaleString('en')}`;
  }
}

/**
 * One phase (the reads, then the writes, which change the catalog): `WARMUP` passes, then `RUNS`
 * measured passes. A pass runs every case once per size, the order of the sizes rotated from one
 * case to the next and from one pass to the next, so each row's samples are spread over the whole
 * phase and a disturbance (another process on the machine) touches every row and every size alike.
 */
export async function phase(sides: Side[], cases: Case[], samples: Map<Case, Samples[]>): Promise<void> {
  for (let pass = 0; pass < WARMUP + RUNS; pass++) {
    const measured = pass >= WARMUP;
    for (const [i, c] of cases.entries()) {
      // Each size takes each place in the order equally often (two sizes: small-large, large-small).
      const order = sides.map((_, j) => (j + pass + i) % sides.length);
      for (const s of order) await once(sides[s]!, c, pass, measured ? samples.get(c)![s] : undefined);
    }
  }
}

/** Nearest rank: the smallest sample at or above which a fraction q of all samples lie. */
function percentile(sorted: number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

export const emptySamples = (): Samples => ({ times: [], read: 0, write: 0, itemsRead: 0 });

export function summarize(s: Samples): Measured {
  const times = [...s.times].sort((a, b) => a - b);
  return {
    read: s.read / times.length,
    write: s.write / times.length,
    itemsRead: s.itemsRead / times.length,
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    ...(s.items !== undefined ? { items: s.items } : {}),
    ...(s.more !== undefined ? { more: s.more } : {}),
    ...(s.total !== undefined ? { total: s.total } : {}),
  };
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits);
export const ratio = (a: number, b: number) => (a === 0 && b === 0 ? '–' : a === 0 ? '∞' : (b / a).toFixed(2));

export async function startSide(size: number, dataDir = ':memory:'): Promise<Side> {
  const dynamo = await startDynamoDbLocal({ port: await freePort(), dataDir, jvmOptions: JVM_OPTIONS });
  const side = { size, dynamo, catalog: emptyCatalog() } as Side;
  use(side);
  // The catalog's table is the first and only table of its process, for both sizes alike.
  await ensureTable('bench-marketplace');
  side.meter = meterCapacity(db());
  return side;
}

export async function run(): Promise<string> {
  const began = performance.now();
  process.env['AWS_REGION'] ??= 'us-east-1';
  process.env['TABLE_NAME'] = 'bench-marketplace';
  const sides: Side[] = [];
  try {
    for (const size of SIZES) sides.push(await startSide(size));
    const now = Date.now();
    const seedSeconds: number[] = [];
    for (const side of sides) {
      use(side);
      const t0 = performance.now();
      // The same generator from the same seed: the small catalog is the large one's first `size` templates.
      await growCatalog(side.catalog, side.size, now, readPartitions());
      // The seed leaves installs as days of traffic would; the daily rollover would have run since.
      await rollTrendWindow(now);
      seedSeconds.push((performance.now() - t0) / 1000);
      process.stderr.write(`bench: marketplace seeded ${side.size} templates in ${fmt(seedSeconds.at(-1)!, 0)} s\n`);
      const first = JSON.parse((await call('listTemplates', { caller: reader, query: { sort: 'recent' } })).body);
      side.cursor = first.pagination.next_cursor;
    }
    const samples = new Map(CASES.filter(wanted).map((c) => [c, sides.map(emptySamples)]));
    const t1 = performance.now();
    await phase(
      sides,
      CASES.filter((c) => !c.writes && wanted(c)),
      samples,
    );
    await phase(
      sides,
      CASES.filter((c) => c.writes && wanted(c)),
      samples,
    );
    const measureSeconds = (performance.now() - t1) / 1000;
    const results = new Map([...samples].map(([c, perSide]) => [`${c.route}|${c.variant}`, perSide.map(summarize)]));
    for (const [key, [s, l]] of results) {
      if (s!.items !== l!.items || s!.more !== l!.more)
        process.stderr.write(`bench: ${key} answers differently at ${SIZES[0]} and ${SIZES[1]} (items, has_more)\n`);
    }
    const installed = results.get('listInstalled|30 installs');
    // The installer's installs are among the first 1,000 templates: the same page at both sizes.
    if (installed && SIZES[0]! >= 1000 && installed[0]!.items !== installed[1]!.items)
      throw new Error('listInstalled must list the same installs at both sizes');
    if (ONLY) return report(results, seedSeconds, measureSeconds, (performance.now() - began) / 1000);
    use(sides[0]!);
    const indexing = await measureSearchIndexing(
      sides[0]!.dynamo.endpoint,
      sides[0]!.meter,
      call,
      reader,
      results.get('installTemplate|new workspace')![0]!.write,
    );
    return `${report(results, seedSeconds, measureSeconds, (performance.now() - began) / 1000)}\n\n${indexing}`;
  } finally {
    await Promise.all(sides.map((s) => s.dynamo.stop()));
  }
}

function report(
  results: Map<string, Measured[]>,
  seedSeconds: number[],
  measureSeconds: number,
  totalSeconds: number,
): string {
  const [small, large] = SIZES;
  const rows = [...results].map(([key, [s, l]]) => {
    const [route, variant] = key.split('|');
    const capacity = (m: Measured) => (m.write ? `${fmt(m.read)} R + ${fmt(m.write)} W` : fmt(m.read));
    // "end" marks a response that finished the result (has_more false) where the other size's did not.
    const end = (m: Measured) => (s!.more !== l!.more && m.more === false ? ' (end)' : '');
    const items = s!.items === undefined ? '–' : `${s!.items}${end(s!)} / ${l!.items}${end(l!)}`;
    const total = s!.total === undefined ? '–' : `${s!.total} / ${l!.total}`;
    return `| ${route} | ${variant} | ${items} | ${total} | ${capacity(s!)} | ${capacity(l!)} | ${ratio(s!.read + s!.write, l!.read + l!.write)} | ${fmt(s!.p50)} / ${fmt(s!.p99)} | ${fmt(l!.p50)} / ${fmt(l!.p99)} | ${ratio(s!.p50, l!.p50)} |`;
  });
  const minutes = `${Math.floor(totalSeconds / 60)} min ${fmt(totalSeconds % 60, 0)} s`;
  return [
    '### Marketplace: cost per request at two catalog sizes',
    '',
    `DynamoDB Local, ${small!.toLocaleString('en')} and ${large!.toLocaleString('en')} templates (90 % public), each size in its own DynamoDB Local process (${JVM_OPTIONS.join(' ') || 'default JVM options'}) and first table, seeded by the same deterministic generator (search postings: the lists the measured searches read, in all three orders, and their driving prefixes' word pairs; counters whole). The real Lambda handlers are called with REST proxy events, alternating between the sizes run by run: ${RUNS} runs per row and size after ${WARMUP} warm-up runs, reads first, then writes. Capacity is what DynamoDB reports with ReturnConsumedCapacity=TOTAL (R = read units, W = write units), averaged per request. Items: how many the response's \`data\` holds at each size; Total: its \`pagination.total\` ("≤" where \`total_exact\` is false); "(end)" marks the size whose response finished the result (\`has_more: false\`) where the other's hands back a cursor. Latency in ms (p50 / p99, nearest rank over ${RUNS} samples). Seeding took ${seedSeconds.map((s) => `${fmt(s, 0)} s`).join(' and ')}, measuring ${fmt(measureSeconds, 0)} s, the whole run ${minutes}.`,
    '',
    `| Route | Variant | Items | Total | Capacity @ ${small!.toLocaleString('en')} | Capacity @ ${large!.toLocaleString('en')} | Capacity ratio | Latency @ ${small!.toLocaleString('en')} | Latency @ ${large!.toLocaleString('en')} | p50 ratio |`,
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

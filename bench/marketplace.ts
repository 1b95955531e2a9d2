/**
 * `npm run bench -- marketplace`: what each marketplace request costs at 1,000 and at 20,000
 * templates. Seeds a catalog in its own DynamoDB Local (BatchWrite with the service's item
 * builders), then runs the real Lambda handlers with REST proxy events and reports, per route and
 * variant, the consumed capacity DynamoDB reports and the p50/p99 latency at both sizes.
 */
import { randomUUID } from 'node:crypto';
import type { Caller } from '../lib/http/caller.ts';
import { routes } from '../lib/routes.ts';
import { db } from '../lib/store/client.ts';
import { ensureTable } from '../lib/store/create-table.ts';
import { startDynamoDbLocal } from '../local/dynamodb-local.ts';
import { freePort } from '../local/ports.ts';
import { invokeRoute, proxyEvent } from '../local/proxy-event.ts';
import { meterCapacity, type CapacityMeter } from './_capacity-meter.ts';
import { emptyCatalog, growCatalog, type Catalog } from './_marketplace-seed.ts';

/** MARKETPLACE_BENCH_SIZES=200,1000 for a quick try; the README's figures use the default. */
const SIZES = (process.env['MARKETPLACE_BENCH_SIZES'] ?? '1000,20000').split(',').map(Number);
const WARMUP = 5;
const RUNS = 50;

interface Request {
  caller: Caller;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

interface Case {
  route: string;
  variant: string;
  /** A fresh request per run (writes need a new user or slug each time). */
  request: (catalog: Catalog, run: number) => Request | Promise<Request>;
  expect: number;
}

const reader: Caller = { userId: randomUUID(), workspaceId: randomUUID(), name: 'Bench Reader', verified: false, operator: false };
const freshUser = (): Caller => ({ ...reader, userId: randomUUID(), workspaceId: randomUUID() });
const list = (query: Record<string, string>) => () => ({ caller: reader, query });
const cursorCache = new Map<string, string>();

const CASES: Case[] = [
  { route: 'listTemplates', variant: 'sort=popular (default)', request: list({}), expect: 200 },
  { route: 'listTemplates', variant: 'sort=recent', request: list({ sort: 'recent' }), expect: 200 },
  { route: 'listTemplates', variant: 'sort=rating', request: list({ sort: 'rating' }), expect: 200 },
  { route: 'listTemplates', variant: 'category=code, sort=popular', request: list({ category: 'code' }), expect: 200 },
  { route: 'listTemplates', variant: 'category=code, sort=recent', request: list({ category: 'code', sort: 'recent' }), expect: 200 },
  { route: 'listTemplates', variant: 'category=code, sort=rating', request: list({ category: 'code', sort: 'rating' }), expect: 200 },
  { route: 'listTemplates', variant: 'limit=100', request: list({ limit: '100' }), expect: 200 },
  { route: 'listTemplates', variant: 'offset=200', request: list({ offset: '200' }), expect: 200 },
  { route: 'listTemplates', variant: 'cursor (page 2, recent)', request: (c) => ({ caller: reader, query: { sort: 'recent', cursor: cursorCache.get(`${c.size}`)! } }), expect: 200 },
  { route: 'listTemplates', variant: 'search=uptime', request: list({ search: 'uptime' }), expect: 200 },
  { route: 'listTemplates', variant: 'search=upt (3 letters)', request: list({ search: 'upt' }), expect: 200 },
  { route: 'listTemplates', variant: 'search=uptime monitor', request: list({ search: 'uptime monitor' }), expect: 200 },
  { route: 'listTemplates', variant: 'search=uptime, category=http', request: list({ search: 'uptime', category: 'http' }), expect: 200 },
  { route: 'featuredTemplates', variant: '4 lists', request: () => ({ caller: reader }), expect: 200 },
  { route: 'getTemplate', variant: 'by id', request: (c) => ({ caller: reader, params: { id: c.sample!.id } }), expect: 200 },
  { route: 'getTemplate', variant: 'by slug', request: (c) => ({ caller: reader, params: { id: c.sample!.slug } }), expect: 200 },
  { route: 'listReviews', variant: 'limit=20', request: (c) => ({ caller: reader, params: { id: c.sample!.id } }), expect: 200 },
  { route: 'listCategories', variant: '', request: () => ({ caller: reader }), expect: 200 },
  { route: 'listInstalled', variant: '30 installs', request: (c) => ({ caller: c.installer }), expect: 200 },
  { route: 'installTemplate', variant: 'new workspace', request: (c) => ({ caller: freshUser(), params: { id: c.sample!.id } }), expect: 201 },
  { route: 'createReview', variant: 'new reviewer', request: (c) => ({ caller: freshUser(), params: { id: c.sample!.id }, body: { rating: 4, title: 'Bench' } }), expect: 201 },
  {
    route: 'publishTemplate',
    variant: 'public',
    request: () => ({
      caller: reader,
      body: { name: 'Bench uptime monitor', slug: `bench-${randomUUID().slice(0, 13)}`, description: 'Published during the benchmark.', category: 'http', version: '1.0.0', schema: { variables: [], checks: [] } },
    }),
    expect: 201,
  },
];

interface Measured {
  read: number;
  write: number;
  p50: number;
  p99: number;
}

async function call(name: string, req: Request) {
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

async function measure(meter: CapacityMeter, catalog: Catalog, c: Case, runs: number): Promise<Measured> {
  const times: number[] = [];
  let read = 0;
  let write = 0;
  for (let run = 0; run < runs; run++) {
    const req = await c.request(catalog, run);
    meter.reset();
    const start = performance.now();
    const res = await call(c.route, req);
    const elapsed = performance.now() - start;
    if (res.statusCode !== c.expect) throw new Error(`${c.route} ${c.variant} @ ${catalog.size}: ${res.statusCode} ${res.body}`);
    times.push(elapsed);
    read += meter.read;
    write += meter.write;
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { read: read / runs, write: write / runs, p50: at(0.5), p99: at(0.99) };
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);
const ratio = (a: number, b: number) => (a === 0 && b === 0 ? '–' : a === 0 ? '∞' : (b / a).toFixed(2));

export async function run(): Promise<string> {
  const dynamo = await startDynamoDbLocal({ port: await freePort(), dataDir: ':memory:' });
  process.env['DYNAMODB_ENDPOINT'] = dynamo.endpoint;
  process.env['AWS_REGION'] ??= 'us-east-1';
  // One table grown from the small size to the large one: DynamoDB Local answers more slowly in
  // tables created later, which would charge the second size for an artefact of the emulator.
  process.env['TABLE_NAME'] = 'bench-marketplace';
  try {
    await ensureTable('bench-marketplace');
    const meter = meterCapacity(db());
    const catalog = emptyCatalog();
    const results = new Map<string, Measured[]>();
    const seedSeconds: number[] = [];
    for (const size of SIZES) {
      const t0 = performance.now();
      await growCatalog(catalog, size);
      seedSeconds.push((performance.now() - t0) / 1000);
      process.stderr.write(`bench: marketplace seeded ${size} templates in ${fmt(seedSeconds.at(-1)!, 0)} s\n`);
      const first = JSON.parse((await call('listTemplates', { caller: reader, query: { sort: 'recent' } })).body);
      cursorCache.set(`${size}`, first.pagination.next_cursor);
      // A warm-up pass over every case first, so the JIT and caches are as warm for the first size as for the second.
      for (const c of CASES) await measure(meter, catalog, c, WARMUP);
      for (const c of CASES) {
        const key = `${c.route}|${c.variant}`;
        results.set(key, [...(results.get(key) ?? []), await measure(meter, catalog, c, RUNS)]);
      }
    }
    return report(results, seedSeconds);
  } finally {
    await dynamo.stop();
  }
}

function report(results: Map<string, Measured[]>, seedSeconds: number[]): string {
  const [small, large] = SIZES;
  const rows = [...results].map(([key, [s, l]]) => {
    const [route, variant] = key.split('|');
    const capacity = (m: Measured) => (m.write ? `${fmt(m.read)} R + ${fmt(m.write)} W` : fmt(m.read));
    return `| ${route} | ${variant} | ${capacity(s!)} | ${capacity(l!)} | ${ratio(s!.read + s!.write, l!.read + l!.write)} | ${fmt(s!.p50)} / ${fmt(s!.p99)} | ${fmt(l!.p50)} / ${fmt(l!.p99)} | ${ratio(s!.p50, l!.p50)} |`;
  });
  return [
    '## Marketplace: cost per request at two catalog sizes',
    '',
    `DynamoDB Local, ${small!.toLocaleString('en')} and ${large!.toLocaleString('en')} templates (90 % public), one table measured at the first size, grown to the second and measured again, the real Lambda handlers called with REST proxy events, ${RUNS} runs per row after a warm-up pass. Capacity is what DynamoDB reports with ReturnConsumedCapacity=TOTAL (R = read units, W = write units), averaged per request. Latency in ms (p50 / p99). Seeding took ${seedSeconds.map((s) => `${fmt(s, 0)} s`).join(' and ')}.`,
    '',
    `| Route | Variant | Capacity @ ${small!.toLocaleString('en')} | Capacity @ ${large!.toLocaleString('en')} | Capacity ratio | Latency @ ${small!.toLocaleString('en')} | Latency @ ${large!.toLocaleString('en')} | p50 ratio |`,
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/**
 * Seeds a synthetic catalog for the marketplace benchmark straight into the table with the
 * service's own item builders (template, slug, version, search postings, reviews, install
 * markers, category counters), by BatchWriteItem: thousands of items a second instead of
 * a publish per request.
 */
import { randomUUID } from 'node:crypto';
import type { Caller } from '../lib/core/caller.ts';
import { installMarker } from '../lib/marketplace/installs/install.ts';
import { reviewItem } from '../lib/marketplace/reviews/review-item.ts';
import { recordIndexFormat } from '../lib/marketplace/search/reindex.ts';
import { searchIndexItems } from '../lib/marketplace/search/search-index.ts';
import { CATEGORIES, type Category } from '../lib/marketplace/templates/categories.ts';
import {
  newTemplateItem,
  ratingAverage,
  ratingKey,
  type TemplateItem,
} from '../lib/marketplace/templates/template-item.ts';
import { versionItem } from '../lib/marketplace/templates/versions.ts';
import { bucketAttribute, installsInWindow, utcDay, windowDays } from '../lib/marketplace/trending/trend.ts';
import { batchWrite, type WriteRequest } from '../lib/store/batch.ts';
import * as keys from '../lib/store/key-builders.ts';
import { ENTITY, listPartitions } from '../lib/store/keys.ts';

/**
 * Templates are written about a theme, the way real catalogs cluster: the theme's two words make
 * the usual name ("Uptime monitor"), its other words fill in, and its category is the usual one.
 * Each description ends with exactly one cadence word, so `hourly` and `daily` are each in about a
 * third of the catalog and never in the same template: the walk's worst case, two frequent words
 * that never meet.
 */
interface Theme {
  category: Category;
  core: [string, string];
  extras: string[];
}

export const THEMES: Theme[] = [
  { category: 'http', core: ['uptime', 'monitor'], extras: ['endpoint', 'status', 'latency', 'certificate', 'dns'] },
  { category: 'artifact', core: ['artifact', 'checksum'], extras: ['build', 'release', 'binary', 'sbom'] },
  { category: 'data', core: ['dataset', 'rows'], extras: ['csv', 'parquet', 'schema', 'freshness'] },
  { category: 'document', core: ['invoice', 'pdf'], extras: ['signature', 'contract', 'summary', 'translation'] },
  { category: 'ai', core: ['prompt', 'score'], extras: ['model', 'judge', 'accuracy', 'label'] },
  { category: 'code', core: ['test', 'coverage'], extras: ['repository', 'commit', 'review', 'lint'] },
  { category: 'other', core: ['backup', 'storage'], extras: ['bucket', 'object', 'archive', 'restore'] },
];
const CADENCES = ['hourly', 'daily', 'weekly'];

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const uniqueLetters = (n: number): string =>
  [n % 26, Math.floor(n / 26) % 26, Math.floor(n / 676) % 26, Math.floor(n / 17576) % 26]
    .map((d) => LETTERS[d])
    .join('-');

/** Deterministic, so both sizes draw from the same distributions. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Catalog {
  size: number;
  author: Caller;
  /** A public template with 60 reviews: the target of the details, reviews and write benchmarks. */
  sample?: TemplateItem;
  /** A workspace with 30 installs. */
  installer: Caller;
  counts: Map<Category, number>;
  /** The search prefix counters, as the indexer would have left them. */
  searchCounts: Map<string, number>;
  random: () => number;
}

const user = (name: string, extra: Partial<Caller> = {}): Caller => ({
  userId: randomUUID(),
  workspaceId: randomUUID(),
  name,
  verified: true,
  operator: false,
  ...extra,
});

export function emptyCatalog(): Catalog {
  return {
    size: 0,
    author: user('Bench Author'),
    installer: user('Bench Installer'),
    counts: new Map(CATEGORIES.map((c) => [c, 0])),
    searchCounts: new Map(),
    random: prng(42),
  };
}

/**
 * Adds templates until the catalog holds `size`; older ones first, so later growth is "newer".
 * `postingPartitions` limits the search postings and word pairs written to those partitions (the ones the
 * benchmark reads: every other posting list is another partition, which no measured search
 * touches); counters and each template's search state are always written whole.
 */
export async function growCatalog(
  catalog: Catalog,
  size: number,
  now = Date.now(),
  postingPartitions?: ReadonlySet<string>,
): Promise<void> {
  const { random, author, installer, counts } = catalog;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const requests: WriteRequest[] = [];
  for (let i = catalog.size; i < size; i++) {
    const theme = pick(THEMES);
    const roll0 = random();
    // Mostly the theme's own name, sometimes one of its words with another of the theme's.
    const words =
      roll0 < 0.6
        ? theme.core
        : roll0 < 0.8
          ? [theme.core[0], pick(theme.extras)]
          : [pick(theme.extras), theme.core[1]];
    const created = new Date(now - 30 * 86_400_000 + i * 60_000).toISOString();
    const isSample = !catalog.sample && i === 100;
    const roll = random();
    const item = newTemplateItem(
      {
        name: `${words[0]} ${words[1]}`,
        // One-letter segments keep slugs unique without adding indexed words (a word needs 2+ characters).
        slug: `${words[0]}-${words[1]}-${uniqueLetters(i)}`,
        description: `${pick(theme.extras)}, ${pick(CADENCES)}.`,
        category: random() < 0.85 ? theme.category : pick(CATEGORIES),
        version: '1.0.0',
        visibility: roll < 0.9 || isSample ? 'public' : roll < 0.95 ? 'unlisted' : 'private',
        schema: {
          variables: [{ name: 'target', type: 'url', required: true }],
          checks: [{ id: 'main', type: 'probe', config: { url: '{{target}}' } }],
        },
      },
      { id: author.userId, name: author.name, verified: true },
      randomUUID(),
      created,
    );
    // Counters as real traffic would have left them, with the derived keys the services keep.
    // Installs follow a power law (P(installs ≥ x) ≈ (x + 1)^-0.83), as marketplace downloads do:
    // half the catalog has at most one, the most installed of 20,000 has about a hundred thousand.
    const installs = Math.floor((1 / (1 - random())) ** 1.2) - 1;
    const ratingCount = Math.floor(random() * 40);
    const ratingSum = Math.round(ratingCount * (1 + random() * 4));
    Object.assign(item, {
      installs,
      popKey: installs,
      rating_count: ratingCount,
      rating_sum: ratingSum,
      rating_avg: ratingAverage(ratingSum, ratingCount),
      ratingKey: ratingKey(ratingSum, ratingCount),
    });
    if (random() < 0.3) {
      const lastDay = utcDay(now - Math.floor(random() * 10) * 86_400_000);
      for (const day of windowDays(lastDay))
        if (random() < 0.5)
          (item as unknown as Record<string, number>)[bucketAttribute(day)] = Math.floor(random() * 50) + 1;
      Object.assign(item, { trend_day: lastDay, trendKey: installsInWindow(item, lastDay) });
    }
    if (random() < 0.01) Object.assign(item, { featured: true, featured_at: created });
    Object.assign(item, listPartitions(item).set);
    if (item.visibility === 'public') counts.set(item.category, counts.get(item.category)! + 1);
    if (isSample) {
      catalog.sample = item;
      // Slug claim and version history matter to the reads of this one template; the rest skip them to seed faster.
      requests.push(
        ...sampleReviews(item, now),
        { put: { ...keys.slug(item.slug), entity: ENTITY.slug, template_id: item.id, created_at: created } },
        { put: versionItem(item.id, '1.0.0', '', item.schema, created) },
      );
    }
    if (i < 1000 && i % 33 === 0 && item.visibility === 'public') {
      requests.push({ put: installMarker(item, installer.workspaceId, new Date(now - i * 1000).toISOString()) });
    }
    // The search index as the stream's indexer would have written it: postings in three orders, its state, the counters.
    const index = searchIndexItems(item);
    for (const list of index.counted) catalog.searchCounts.set(list, (catalog.searchCounts.get(list) ?? 0) + 1);
    const all = [...index.postings, ...index.pairs];
    const postings = postingPartitions ? all.filter((p) => postingPartitions.has(p['PK'] as string)) : all;
    requests.push(
      { put: item as unknown as Record<string, unknown> },
      { put: index.state },
      ...postings.map((put) => ({ put })),
    );
  }
  for (const [category, count] of counts)
    requests.push({ put: { ...keys.categoryCount(category), entity: ENTITY.categoryCount, name: category, count } });
  for (const [list, count] of catalog.searchCounts)
    requests.push({ put: { ...keys.searchCount(list), entity: ENTITY.searchCount, list, count } });
  await batchWrite(requests, 8);
  // The index was built with the current indexer's builders, whole for every partition a search reads.
  await recordIndexFormat();
  catalog.size = size;
}

/** 60 reviews on the sample template, its counters set to match (before its item is written). */
function sampleReviews(item: TemplateItem, now: number): WriteRequest[] {
  const reviews = Array.from({ length: 60 }, (_, r) =>
    reviewItem(
      item.id,
      { rating: 1 + (r % 5), title: `Review ${r}`, comment: 'Fine.' },
      user(`Reviewer ${r}`),
      randomUUID(),
      new Date(now - r * 1000).toISOString(),
    ),
  );
  const sum = reviews.reduce((a, r) => a + r.rating, 0);
  Object.assign(item, {
    rating_count: 60,
    rating_sum: sum,
    rating_avg: ratingAverage(sum, 60),
    ratingKey: ratingKey(sum, 60),
  });
  return reviews.map((put) => ({ put }));
}

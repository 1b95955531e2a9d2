import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  newTemplateItem,
  ratingAverage,
  ratingKey,
  type TemplateItem,
} from '../../lib/marketplace/templates/template-item.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { indexSearch, seedIndexed } from '../support/search-index.ts';
import { detailPaths, expectError, publish } from './helpers.ts';

// These tests run the search indexer (the stream consumer) too, which takes a while on a busy machine.
vi.setConfig({ testTimeout: 90_000 });

/**
 * Search in each sort, checked against the order the API defines, computed here from the stats and
 * dates the API returns: popular = installs desc; rating = rating_avg desc, rating_count desc
 * (unrated last); recent = created_at desc; ties newest first (created_at, then id, descending).
 */
let author: TestUser;
const ids: Record<string, string> = {};

type Summary = {
  id: string;
  slug: string;
  category: string;
  created_at: string;
  stats: { installs: number; rating_avg: number; rating_count: number };
};
const newestFirst = (a: Summary, b: Summary) =>
  a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1;
const ORDER = {
  popular: (a: Summary, b: Summary) => b.stats.installs - a.stats.installs || newestFirst(a, b),
  rating: (a: Summary, b: Summary) =>
    b.stats.rating_avg - a.stats.rating_avg || b.stats.rating_count - a.stats.rating_count || newestFirst(a, b),
  recent: newestFirst,
};

const list = async (query: Record<string, string>) => {
  await indexSearch(); // the stream's search indexer catches up first
  const res = await invoke('listTemplates', { caller: author, query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    data: Summary[];
    pagination: { total: number; total_exact?: false; has_more: boolean; next_cursor: string | null; offset: number };
  };
};

/** Every page by cursor, and every page by offset, of one query. */
async function allPages(
  query: Record<string, string>,
  limit: number,
): Promise<{ byCursor: Summary[]; byOffset: Summary[] }> {
  const byCursor: Summary[] = [];
  let cursor: string | null = null;
  do {
    const page = await list({ ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
    byCursor.push(...page.data);
    cursor = page.pagination.next_cursor;
  } while (cursor);
  const byOffset: Summary[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = await list({ ...query, limit: String(limit), offset: String(offset) });
    byOffset.push(...page.data);
    if (!page.pagination.has_more) break;
  }
  return { byCursor, byOffset };
}

/** Sets a template's counters to what installs and reviews would have left (with the derived keys the services keep). */
async function setStats(id: string, installs: number, ratingSum = 0, ratingCount = 0): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.template(id),
      UpdateExpression:
        'SET installs = :i, popKey = :i, rating_sum = :s, rating_count = :c, rating_avg = :a, ratingKey = :k',
      ExpressionAttributeValues: {
        ':i': installs,
        ':s': ratingSum,
        ':c': ratingCount,
        ':a': ratingAverage(ratingSum, ratingCount),
        ':k': ratingKey(ratingSum, ratingCount),
      },
    }),
  );
}

beforeAll(async () => {
  author = await createTestUser();
  // Published in this order (so newest = last); 42 and 43 installs share the popularity bucket
  // [42, 44) in an order unlike their installs, 40 and 41 share [40, 42); two templates tie on
  // installs, two on rating.
  const specs: [string, string, number, number, number][] = [
    ['k0', 'http', 0, 0, 0],
    ['k1', 'http', 43, 8, 2],
    ['k2', 'http', 40, 20, 5],
    ['k3', 'http', 41, 5, 1],
    ['k4', 'http', 42, 0, 0],
    ['k5', 'http', 41, 9, 2],
    ['k6', 'http', 3, 20, 5],
    ['k7', 'data', 1000, 2, 1],
    ['k8', 'http', 17, 0, 0],
  ];
  for (const [name, category, installs, sum, count] of specs) {
    ids[name] = (
      await publish(author, { name: `Kestrel ${name}`, slug: `kestrel-${name}-${randomUUID().slice(0, 6)}`, category })
    ).id;
    await setStats(ids[name]!, installs, sum, count);
  }
  const hidden = await publish(author, { name: 'Kestrel hidden', category: 'http', visibility: 'private' });
  await setStats(hidden.id, 5000, 25, 5);
}, 120_000);

describe('search in every sort', () => {
  it('defaults to popular: installs descending, exact inside a popularity bucket, ties newest first', async () => {
    const page = await list({ search: 'kestrel' });
    expect(page.data).toHaveLength(9);
    expect(page.data.map((s) => s.stats.installs)).toEqual([1000, 43, 42, 41, 41, 40, 17, 3, 0]);
    expect(page.data).toEqual([...page.data].sort(ORDER.popular));
    expect(page.pagination).toEqual({ limit: 20, offset: 0, total: 9, has_more: false, next_cursor: null });
  });

  for (const sort of ['popular', 'rating', 'recent'] as const) {
    it(`${sort}: pages by cursor and by offset are disjoint, complete and in the documented order`, async () => {
      const { data: whole } = await list({ search: 'kestrel', sort });
      expect(whole).toEqual([...whole].sort(ORDER[sort]));
      for (const limit of [1, 2, 4]) {
        const { byCursor, byOffset } = await allPages({ search: 'kestrel', sort }, limit);
        expect(byCursor.map((s) => s.id)).toEqual(whole.map((s) => s.id));
        expect(byOffset.map((s) => s.id)).toEqual(whole.map((s) => s.id));
      }
    });
  }

  it('rating with search and a category: average, then count, unrated last, only that category', async () => {
    const page = await list({ search: 'kestrel', sort: 'rating', category: 'http' });
    expect(page.data.every((s) => s.category === 'http')).toBe(true);
    expect(page.data.map((s) => s.id)).not.toContain(ids['k7']);
    expect(page.data.map((s) => [s.stats.rating_avg, s.stats.rating_count])).toEqual([
      [5, 1],
      [4.5, 2],
      [4, 5],
      [4, 5],
      [4, 2],
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
    expect(page.data).toEqual([...page.data].sort(ORDER.rating));
    expect(page.pagination.total).toBe(8);
  });

  it('follows real installs and reviews through the stream', async () => {
    // k0 (0 installs) gets one: it passes nobody but the order must still hold; k6 gets a 5-star review.
    const installer = await createTestUser();
    expect((await invoke('installTemplate', { caller: installer, params: { id: ids['k0']! } })).status).toBe(201);
    expect(
      (
        await invoke('createReview', {
          caller: installer,
          params: { id: ids['k6']! },
          body: { rating: 5, title: 'Good' },
        })
      ).status,
    ).toBe(201);
    const popular = await list({ search: 'kestrel' });
    expect(popular.data.at(-1)).toMatchObject({ id: ids['k0'], stats: { installs: 1 } });
    expect(popular.data).toEqual([...popular.data].sort(ORDER.popular));
    const rating = await list({ search: 'kestrel', sort: 'rating' });
    expect(rating.data.find((s) => s.id === ids['k6'])!.stats).toMatchObject({ rating_count: 6 });
    expect(rating.data).toEqual([...rating.data].sort(ORDER.rating));
  });

  it('answers an exact total for a one-word search read in part', async () => {
    const page = await list({ search: 'kestrel', limit: '2' });
    expect(page.data).toHaveLength(2);
    expect(page.pagination).toEqual({ limit: 2, offset: 0, total: 9, has_more: true, next_cursor: expect.any(String) });
    expect((await list({ search: 'kest', limit: '2', category: 'data' })).pagination.total).toBe(1);
  });

  it('refuses a cursor from another sort or search', async () => {
    const cursor = (await list({ search: 'kestrel', sort: 'popular', limit: '2' })).pagination.next_cursor!;
    for (const query of [
      { search: 'kestrel', sort: 'rating' },
      { search: 'kestrel', sort: 'recent' },
      { search: 'kestrel k1', sort: 'popular' },
      { sort: 'popular' },
    ] as Record<string, string>[]) {
      const res = await invoke('listTemplates', { caller: author, query: { ...query, cursor } });
      expectError(res, 400, 'validation_error');
      expect(detailPaths(res)).toEqual(['cursor']);
    }
  });
});

describe('popular with search at offset 200', () => {
  const SIZE = 230;
  let seeded: TemplateItem[];

  beforeAll(async () => {
    // Straight into the table with the service's own builders, index included (230 publishes would only add time).
    seeded = Array.from({ length: SIZE }, (_, i) => {
      const item = newTemplateItem(
        {
          name: `Osprey ${i}`,
          slug: `osprey-${i}`,
          description: '',
          category: 'data',
          version: '1.0.0',
          visibility: 'public',
          schema: { variables: [], checks: [] },
        },
        { id: author.userId, name: author.name, verified: false },
        randomUUID(),
        new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
      );
      // Many ties, and many templates per wide popularity bucket.
      const installs = (i * 37) % 120;
      return Object.assign(item, { installs, popKey: installs });
    });
    // Only the postings the searches below walk (the driving list of `osprey`): the other 50 items
    // of each template's index would be 11,000 writes nobody reads.
    await seedIndexed(seeded, ['osprey']);
  }, 120_000);

  it('returns the 201st to 220th template by installs, then the next page by cursor', async () => {
    const expected = [...seeded]
      .sort((a, b) => b.installs - a.installs || (a.recentKey < b.recentKey ? 1 : -1))
      .map((t) => t.slug);
    const page = await list({ search: 'osprey', offset: '200' });
    expect(page.data.map((s) => s.slug)).toEqual(expected.slice(200, 220));
    expect(page.pagination).toMatchObject({ offset: 200, total: SIZE, has_more: true });
    const next = await list({ search: 'osprey', cursor: page.pagination.next_cursor! });
    expect(next.data.map((s) => s.slug)).toEqual(expected.slice(220, 230));
    expect(next.pagination).toMatchObject({ offset: 220, total: SIZE, has_more: false, next_cursor: null });
  });
});

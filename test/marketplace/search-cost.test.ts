import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { searchIndexItems, syncSearchIndex } from '../../lib/marketplace/search/search-index.ts';
import type { Category } from '../../lib/marketplace/templates/categories.ts';
import { newTemplateItem, type TemplateItem } from '../../lib/marketplace/templates/template-item.ts';
import { batchWrite } from '../../lib/store/batch.ts';
import { type CapacityMeter, meterCapacity } from '../../lib/store/capacity-meter.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { ENTITY } from '../../lib/store/keys.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { indexItemsOn } from '../support/search-index.ts';
import { publish } from './helpers.ts';

// These tests run the search indexer (the stream consumer) too, which takes a while on a busy machine.
vi.setConfig({ testTimeout: 90_000 });

/**
 * What a multi-word search reads, measured with ReturnConsumedCapacity (units, not time): the walk
 * drops postings whose words cannot match, so the templates it reads are the candidates, not every
 * template on the driving word's list.
 */
const WALKED = 600;
/** Positions on the `alpha` list (0 = oldest) that also carry `beta`. */
const BETA_AT = [5, 300, 590];

let author: TestUser;
let meter: CapacityMeter;
const betaSlugsNewestFirst = BETA_AT.map((i) => `alpha-${i}`).reverse();

/** 70 words that differ in their first 6 characters: over 450 bytes, so the postings carry no `w`. */
const longText = (seed: number) =>
  Array.from({ length: 70 }, (_, i) => `q${seed.toString(36).padStart(2, '0')}${i.toString(36).padStart(3, '0')}`).join(
    ' ',
  );

function seededTemplate(
  i: number,
  text: { name: string; slug: string; description: string; category: Category } = alphaText(i),
): TemplateItem {
  const created = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
  return newTemplateItem(
    {
      ...text,
      version: '1.0.0',
      visibility: 'public',
      schema: { variables: [], checks: [] },
    },
    { id: author.userId, name: author.name, verified: false },
    randomUUID(),
    created,
  );
}

function alphaText(i: number) {
  return {
    name: BETA_AT.includes(i) ? `Alpha beta ${i}` : `Alpha gamma ${i}`,
    slug: `alpha-${i}`,
    description: '',
    category: 'data' as const,
  };
}

const postingsOn = (t: TemplateItem, prefix: string) =>
  indexItemsOn(searchIndexItems(t), [prefix]).map((put) => ({ put }));

/** Adds `items` to the counters of the prefixes of `word`, as the indexer would have (the other counters are not read here). */
async function count(items: TemplateItem[], word: string): Promise<void> {
  const counts = new Map<string, number>();
  const ofWord = (list: string) => word.startsWith(list.slice(list.indexOf('/') + 1));
  for (const t of items)
    for (const list of searchIndexItems(t).counted.filter(ofWord)) counts.set(list, (counts.get(list) ?? 0) + 1);
  for (const [list, by] of counts) {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.searchCount(list),
        UpdateExpression: 'SET entity = :e ADD #c :by',
        ExpressionAttributeNames: { '#c': 'count' },
        ExpressionAttributeValues: { ':e': ENTITY.searchCount, ':by': by },
      }),
    );
  }
}

const search = async (query: Record<string, string>) => {
  meter.reset();
  const res = await invoke('listTemplates', { caller: author, query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { body: res.body, read: meter.read };
};

beforeAll(async () => {
  author = await createTestUser();
  // Straight into the table with the service's own builders, and only the `alph` postings these
  // queries walk (the driving list of `alpha` and of `alpha beta`): 600 publishes would only add time.
  const items = Array.from({ length: WALKED }, (_, i) => seededTemplate(i));
  await batchWrite(items.flatMap((t) => [{ put: t as unknown as Record<string, unknown> }, ...postingsOn(t, 'alph')]));
  await count(items, 'alpha');
  await count(items, 'beta');
  meter = meterCapacity(db());
}, 60_000);

describe('multi-word search cost', () => {
  it('reads the templates of matching postings only, and pages a rare combination through to its end', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { body, read } = await search({ search: 'alpha beta', ...(cursor ? { cursor } : {}) });
      // A posting budget of 5 read units (plus at most one posting's worth of overrun), 3 templates
      // at 0.5 each, and the word pairs' check (the recorded index format and one pair, 0.5 each).
      // Reading each walked template instead would cost 0.5 per posting: over 100 units.
      expect(read).toBeLessThanOrEqual(7.5);
      seen.push(...body.data.map((s: { slug: string }) => s.slug));
      cursor = body.pagination.next_cursor ?? undefined;
      expect(body.pagination.has_more).toBe(cursor !== undefined);
      pages++;
    } while (cursor);
    expect(seen).toEqual(betaSlugsNewestFirst);
    // 600 postings are more than 5 units' worth: the walk is cut by the budget and goes on by cursor.
    expect(pages).toBeGreaterThanOrEqual(2);
  });

  it('ends at once, with an exact total of 0, when a query word is in no template', async () => {
    const { body } = await search({ search: 'alpha xray' });
    expect(body.data).toEqual([]);
    expect(body.pagination).toEqual({ limit: 20, offset: 0, total: 0, has_more: false, next_cursor: null });
  });

  it('keeps an offset across pages cut short by the budget before they reached it', async () => {
    // offset 2 of the 3 matches: the first pages run out of budget having found fewer than 2.
    const pages: { data: string[]; offset: number; total: number | null }[] = [];
    let cursor: string | undefined;
    do {
      const { body } = await search({ search: 'alpha beta', limit: '1', ...(cursor ? { cursor } : { offset: '2' }) });
      pages.push({
        data: body.data.map((s: { slug: string }) => s.slug),
        offset: body.pagination.offset,
        total: body.pagination.total,
      });
      cursor = body.pagination.next_cursor ?? undefined;
    } while (cursor);
    expect(pages.length).toBeGreaterThanOrEqual(2);
    expect(pages.flatMap((p) => p.data)).toEqual(['alpha-5']);
    expect(pages.find((p) => p.data.length > 0)!.offset).toBe(2);
    expect(pages.at(-1)!.total).toBe(3);
  });

  it('a single word on its own list reads about one page of postings and one page of templates', async () => {
    const { body, read } = await search({ search: 'alpha', limit: '20' });
    expect(body.data).toHaveLength(20);
    // The total comes from the prefix counter, exact without reading the list.
    expect(body.pagination).toEqual({
      limit: 20,
      offset: 0,
      total: WALKED,
      has_more: true,
      next_cursor: expect.any(String),
    });
    // 21 postings (one 4 KB read) + 21 templates at 0.5 each (the 21st answers has_more) + the counter.
    expect(read).toBeLessThanOrEqual(12);
  });

  it('still finds a template whose words are too long to ride on its postings (checked on the item instead)', async () => {
    const t = await publish(author, {
      name: 'Omega lexicon',
      slug: 'omega-lexicon',
      description: `${longText(0)} zulu.`,
      category: 'other',
    });
    await syncSearchIndex(t.id); // what the stream's search indexer does after the publish
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.searchPosting('recent', 'omeg', `${t.created_at}#${t.id}`) }),
    );
    expect(Item).toBeDefined();
    expect(Item!['w']).toBeUndefined();
    expect((await search({ search: 'omega zulu' })).body.data.map((s: { slug: string }) => s.slug)).toEqual([
      'omega-lexicon',
    ]);
    expect((await search({ search: 'omega yankee' })).body.data).toEqual([]);
  });

  it('checks at most twice the page in templates when postings cannot rule them out, then hands back a cursor', async () => {
    // 40 newer long-text templates on the `omeg` list, none with `xray`: each is a candidate only its item can reject.
    const newer = Array.from({ length: 40 }, (_, i) =>
      seededTemplate(1000 + i, {
        name: `Omega long ${i}`,
        slug: `omega-long-${i}`,
        description: longText(i + 1),
        category: 'other',
      }),
    );
    // Only their `omeg` postings: the query walks that list alone, and their other ~300 postings each would only slow the test.
    await batchWrite(
      newer.flatMap((t) => [{ put: t as unknown as Record<string, unknown> }, ...postingsOn(t, 'omeg')]),
    );
    await count(newer, 'omega');
    // `alpha` is a word of the catalog, but of no omega template: only the items can tell.
    const first = await search({ search: 'omega alpha', limit: '5' });
    expect(first.body.data).toEqual([]);
    // Not read to its end: the total is a bound (the smaller word count, 41 omega templates), marked as such.
    expect(first.body.pagination).toMatchObject({
      has_more: true,
      total: 41,
      total_exact: false,
      next_cursor: expect.any(String),
    });
    // 12 templates (2 × (limit + 1)) at 0.5 each plus a few postings, the two words' counters and the
    // pair check (the recorded format, and 20 of the 41 wide markers: more than it checks, so it walks); reading all 40 would be 20.
    expect(first.read).toBeLessThanOrEqual(10);
    let cursor: string | null = first.body.pagination.next_cursor;
    let pages = 1;
    while (cursor) {
      const next = await search({ search: 'omega alpha', limit: '5', cursor });
      expect(next.body.data).toEqual([]);
      cursor = next.body.pagination.next_cursor;
      pages++;
    }
    expect(pages).toBe(4); // 41 long-text postings, 12 checked per page
  });
});

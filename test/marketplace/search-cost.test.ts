import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { searchPostings } from '../../lib/marketplace/search-index.ts';
import { newTemplateItem, type TemplateItem } from '../../lib/marketplace/template-item.ts';
import { batchWrite } from '../../lib/store/batch.ts';
import { meterCapacity, type CapacityMeter } from '../../lib/store/capacity-meter.ts';
import { db, tableName } from '../../lib/store/client.ts';
import { keys } from '../../lib/store/keys.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { publish } from './helpers.ts';

/**
 * What a multi-word search reads, measured with ReturnConsumedCapacity (units, not time): the walk
 * drops postings whose words cannot match, so the templates it reads are the candidates, not every
 * template on the driving word's list.
 */
const WALKED = 260;
/** Positions on the `alpha` list (0 = oldest) that also carry `beta`. */
const BETA_AT = [5, 130, 250];

let author: TestUser;
let meter: CapacityMeter;
const betaSlugsNewestFirst = BETA_AT.map((i) => `alpha-${i}`).reverse();

function seededTemplate(i: number): TemplateItem {
  const created = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
  return newTemplateItem(
    {
      name: BETA_AT.includes(i) ? `Alpha beta ${i}` : `Alpha gamma ${i}`,
      slug: `alpha-${i}`,
      description: '',
      category: 'data',
      version: '1.0.0',
      visibility: 'public',
      schema: { variables: [], checks: [] },
    },
    { id: author.userId, name: author.name, verified: false },
    randomUUID(),
    created,
  );
}

const search = async (query: Record<string, string>) => {
  meter.reset();
  const res = await invoke('listTemplates', { caller: author, query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { body: res.body, read: meter.read };
};

beforeAll(async () => {
  author = await createTestUser();
  // Straight into the table with the service's own builders: 260 publishes through the API would only add time.
  const items = Array.from({ length: WALKED }, (_, i) => seededTemplate(i));
  await batchWrite(items.flatMap((t) => [{ put: t as unknown as Record<string, unknown> }, ...searchPostings(t).map((put) => ({ put }))]));
  meter = meterCapacity(db());
}, 60_000);

describe('multi-word search cost', () => {
  it('reads the templates of matching postings only, and pages a rare combination through to its end', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { body, read } = await search({ search: 'alpha beta', ...(cursor ? { cursor } : {}) });
      // At most 200 postings (~40 KB, ≤ 6 units eventually consistent) plus 3 templates (0.5 each).
      // Reading each walked template instead would cost 0.5 per posting: 100 units for this page.
      expect(read).toBeLessThanOrEqual(8);
      seen.push(...body.data.map((s: { slug: string }) => s.slug));
      cursor = body.pagination.next_cursor ?? undefined;
      expect(body.pagination.has_more).toBe(cursor !== undefined);
      pages++;
    } while (cursor);
    expect(seen).toEqual(betaSlugsNewestFirst);
    // 260 postings over a 200-posting budget: the first page stops at the budget and says so.
    expect(pages).toBe(2);
  });

  it('a single word on its own list reads about one page of postings and one page of templates', async () => {
    const { body, read } = await search({ search: 'alpha', limit: '20' });
    expect(body.data).toHaveLength(20);
    expect(body.pagination).toMatchObject({ has_more: true, total: null });
    // 21 postings (one 4 KB read) + 20 templates at 0.5 each.
    expect(read).toBeLessThanOrEqual(11);
  });

  it('still finds a template whose words are too long to ride on its postings (checked on the item instead)', async () => {
    const many = Array.from({ length: 150 }, (_, i) => `word${i.toString(36)}x${'q'.repeat(i % 4)}`).join(' ');
    const t = await publish(author, { name: 'Omega lexicon', slug: 'omega-lexicon', description: `${many} zulu.`, category: 'other' });
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.searchPosting('omeg', `${t.created_at}#${t.id}`) }));
    expect(Item).toBeDefined();
    expect(Item!['w']).toBeUndefined();
    expect((await search({ search: 'omega zulu' })).body.data.map((s: { slug: string }) => s.slug)).toEqual(['omega-lexicon']);
    expect((await search({ search: 'omega yankee' })).body.data).toEqual([]);
  });
});

import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { recordIndexFormat } from '../../lib/marketplace/search/reindex.ts';
import { mayMeet, PAIR_CUTS_MAX, pairItems } from '../../lib/marketplace/search/word-pairs.ts';
import { newTemplateItem, type TemplateItem } from '../../lib/marketplace/templates/template-item.ts';
import { type CapacityMeter, meterCapacity } from '../../lib/store/capacity-meter.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { ENTITY } from '../../lib/store/keys.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { indexItemsOf, indexSearch, seedIndexed, wantedIndexItems } from '../support/search-index.ts';
import { publish } from './helpers.ts';

// These tests run the search indexer (the stream consumer) too, which takes a while on a busy machine.
vi.setConfig({ testTimeout: 90_000 });

/**
 * Word pairs (lib/marketplace/search/word-pairs.ts): a multi-word search whose words no template
 * holds together answers empty, exactly, from one read per word, at any catalog size; words that do
 * meet are still found however the query cuts them; the pairs follow edits, visibility and crashes
 * like the postings, and a template too long for pairs is found by the walk.
 */
const root = join(import.meta.dirname, '../..');
let author: TestUser;
let meter: CapacityMeter;

const search = async (query: Record<string, string>) => {
  await indexSearch();
  meter.reset();
  const res = await invoke('listTemplates', { caller: author, query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { body: res.body, slugs: res.body.data.map((s: { slug: string }) => s.slug) as string[], read: meter.read };
};

async function template(id: string): Promise<TemplateItem> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.template(id), ConsistentRead: true }),
  );
  return Item as TemplateItem;
}

/** The word pairs (and wide markers) of `id` on the partitions of the given states, as `PK|SK`. */
const pairsOf = async (id: string, states: TemplateItem[]) => (await indexItemsOf(id, states)).filter(isPair);
const isPair = (key: string) => key.startsWith(keys.searchPairPk('')) || key.startsWith(keys.searchWidePk(''));
const wantedPairs = (t: TemplateItem) => wantedIndexItems(t).filter(isPair);

/**
 * `count` templates "Kestrel <n>", each either hourly or daily, never both, with their search index
 * as the indexer builds it: counters whole, postings and pairs only on the partitions the searches
 * below read (the driving prefixes `kestre` and `hourly`; the other 120 items per template would only add time).
 */
async function seedKestrels(from: number, count: number): Promise<void> {
  const templates = Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return newTemplateItem(
      {
        name: `Kestrel ${i}`,
        slug: `kestrel-${i}`,
        description: i % 2 ? 'Runs hourly.' : 'Runs daily.',
        category: 'data',
        version: '1.0.0',
        visibility: 'public',
        schema: { variables: [], checks: [] },
      },
      { id: author.userId, name: author.name, verified: false },
      randomUUID(),
      new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    );
  });
  await seedIndexed(templates, ['kestre', 'hourly']);
}

beforeAll(async () => {
  author = await createTestUser();
  meter = meterCapacity(db());
});

describe('words that never meet', () => {
  it('answer empty with an exact total, for the same reads at 40 and at 440 templates', async () => {
    await seedKestrels(0, 40);
    const small = await search({ search: 'hourly daily' });
    expect(small.body.data).toEqual([]);
    expect(small.body.pagination).toEqual({ limit: 20, offset: 0, total: 0, has_more: false, next_cursor: null });
    for (const sort of ['recent', 'rating'])
      expect((await search({ search: 'daily hourly', sort })).body.pagination.total).toBe(0);

    await seedKestrels(40, 400);
    const large = await search({ search: 'hourly daily' });
    expect(large.body.pagination).toEqual(small.body.pagination);
    // The pair reads (one per other word and one for wide templates, at most one item each), the
    // recorded index format and the words' counters: the same at both sizes. A walk of the 220 `hourly` postings would read over 5 units.
    expect(large.read).toBe(small.read);
    expect(large.read).toBeLessThanOrEqual(2);
    // Words that meet still walk: the three together are found.
    expect((await search({ search: 'kestrel hourly', limit: '5' })).body.pagination).toMatchObject({ has_more: true });
    expect((await search({ search: 'kestrel 439 hourly' })).slugs).toEqual(['kestrel-439']);
    expect((await search({ search: 'kestrel 438 hourly' })).slugs).toEqual([]);
  });
});

describe('words that meet', () => {
  it('are found however the query cuts them: short words, one letter, a word inside another', async () => {
    await publish(author, {
      name: 'Heron lake watcher',
      slug: 'heron-lake',
      description: 'Counts herons at dawn.',
      category: 'data',
    });
    await publish(author, {
      name: 'Owl night survey',
      slug: 'owl-survey',
      description: 'Listens at dusk.',
      category: 'data',
    });
    await publish(author, {
      name: 'Café crème tasting',
      slug: 'cafe-tasting',
      description: 'Über-strong.',
      category: 'data',
    });
    expect((await search({ search: 'CREME Caf' })).slugs).toEqual(['cafe-tasting']);
    expect((await search({ search: 'uber crème' })).slugs).toEqual(['cafe-tasting']);
    for (const query of [
      'heron lake',
      'lake her',
      'h lake',
      'watcher w',
      'herons heron',
      'dawn daw',
      'lake dawn',
      'counts herons dawn lake',
      'lak he',
    ]) {
      expect((await search({ search: query })).slugs, query).toEqual(['heron-lake']);
    }
    expect((await search({ search: 'lake dusk' })).body.pagination).toEqual({
      limit: 20,
      offset: 0,
      total: 0,
      has_more: false,
      next_cursor: null,
    });
    expect((await search({ search: 'lake dusk', category: 'data', sort: 'rating' })).slugs).toEqual([]);
    expect((await search({ search: 'night dusk', category: 'data' })).slugs).toEqual(['owl-survey']);
  });
});

describe('the pairs follow the template', () => {
  it('a template of 24 word cuts has pairs, one of 25 a wide marker per prefix instead', () => {
    const cuts = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    expect(pairItems('t', { lists: ['ab', 'data/ab'], w: cuts(PAIR_CUTS_MAX) }).map((i) => i.PK)).toEqual(
      Array(PAIR_CUTS_MAX).fill(keys.searchPairPk('ab')),
    );
    expect(pairItems('t', { lists: ['ab', 'data/ab'], w: cuts(PAIR_CUTS_MAX + 1) })).toEqual([
      { ...keys.searchWide('ab', 't'), entity: ENTITY.searchWide, template_id: 't', w: cuts(PAIR_CUTS_MAX + 1) },
    ]);
    expect(pairItems('t', { lists: ['ab'], w: null })).toEqual([
      { ...keys.searchWide('ab', 't'), entity: ENTITY.searchWide, template_id: 't' },
    ]);
    expect(pairItems('t', { lists: [], w: cuts(3) })).toEqual([]);
  });

  it('through edits, visibility, and a text too long for pairs and back, leaving nothing behind', async () => {
    const t = await publish(author, {
      name: 'Plover count',
      slug: 'plover-count',
      description: 'Tallies at the shore.',
      category: 'data',
    });
    await indexSearch();
    const first = await template(t.id);
    expect(await pairsOf(t.id, [first])).toEqual(wantedPairs(first));
    expect(wantedPairs(first).length).toBeGreaterThan(0);
    expect((await search({ search: 'plover shore' })).slugs).toEqual(['plover-count']);

    await invoke('updateTemplate', {
      caller: author,
      params: { id: t.id },
      body: { description: 'Tallies at the marsh.' },
    });
    expect((await search({ search: 'plover shore' })).slugs).toEqual([]);
    expect((await search({ search: 'plover marsh' })).slugs).toEqual(['plover-count']);
    const edited = await template(t.id);
    expect(await pairsOf(t.id, [first, edited])).toEqual(wantedPairs(edited));

    // More word cuts than pairs are kept for: wide markers instead, and the walk finds it.
    const long = Array.from({ length: PAIR_CUTS_MAX + 2 }, (_, i) => `w${i}x${'abcdefghijklmnopqrstuvwxyz'[i]}`).join(
      ' ',
    );
    await invoke('updateTemplate', { caller: author, params: { id: t.id }, body: { description: `${long} marsh.` } });
    expect((await search({ search: 'plover marsh' })).slugs).toEqual(['plover-count']);
    expect((await search({ search: 'plover w3xd' })).slugs).toEqual(['plover-count']);
    const wide = await template(t.id);
    const widePairs = await pairsOf(t.id, [first, edited, wide]);
    expect(widePairs).toEqual(wantedPairs(wide));
    expect(widePairs.every((k) => k.startsWith(keys.searchWidePk('')))).toBe(true);
    // Its wide markers carry its word cuts: a word it lacks is ruled out on them, without a walk.
    expect(await mayMeet('plover', ['shore'], ['plover', 'shore'])).toBe(false);
    expect(await mayMeet('plover', ['marsh'], ['plover', 'marsh'])).toBe(true);
    expect((await search({ search: 'plover shore' })).body.pagination).toEqual({
      limit: 20,
      offset: 0,
      total: 0,
      has_more: false,
      next_cursor: null,
    });
    // A word changed under the same prefixes (`cat` → `cab`: both only `ca`): the markers keep their keys but carry the new words.
    await invoke('updateTemplate', {
      caller: author,
      params: { id: t.id },
      body: { description: `${long} marsh cat.` },
    });
    expect((await search({ search: 'plover cat' })).slugs).toEqual(['plover-count']);
    await invoke('updateTemplate', {
      caller: author,
      params: { id: t.id },
      body: { description: `${long} marsh cab.` },
    });
    expect((await search({ search: 'plover cab' })).slugs).toEqual(['plover-count']);
    expect((await search({ search: 'plover cat' })).slugs).toEqual([]);
    await invoke('updateTemplate', { caller: author, params: { id: t.id }, body: { description: `${long} marsh.` } });

    await invoke('updateTemplate', { caller: author, params: { id: t.id }, body: { visibility: 'private' } });
    expect((await search({ search: 'plover marsh' })).slugs).toEqual([]);
    expect(await pairsOf(t.id, [first, edited, wide])).toEqual([]);

    await invoke('updateTemplate', {
      caller: author,
      params: { id: t.id },
      body: { visibility: 'public', description: 'Tallies at the shore.' },
    });
    expect((await search({ search: 'plover shore' })).slugs).toEqual(['plover-count']);
    expect((await search({ search: 'plover marsh' })).slugs).toEqual([]);
    expect(await pairsOf(t.id, [first, edited, wide])).toEqual(wantedPairs(await template(t.id)));
  });

  it('are trusted only once `npm run admin -- reindex-search` has given every template its pairs', async () => {
    const t = await publish(author, {
      name: 'Curlew call',
      slug: 'curlew-call',
      description: 'Records at the estuary.',
      category: 'data',
    });
    await indexSearch();
    // A table indexed before word pairs: no pair items, states without a format, no recorded format.
    const now = await template(t.id);
    for (const key of wantedPairs(now)) {
      const [PK, SK] = key.split('|');
      await db().send(new DeleteCommand({ TableName: tableName(), Key: { PK, SK } }));
    }
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.searchState(t.id),
        UpdateExpression: 'REMOVE cur.#format',
        ExpressionAttributeNames: { '#format': 'format' },
      }),
    );
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.searchIndexFormat }));
    // Until the format is recorded, a multi-word search walks: the template is found without pairs.
    expect((await search({ search: 'curlew estuary' })).slugs).toEqual(['curlew-call']);
    // Trusting pairs that are not there yet would hide it: what the recorded format guards against.
    await recordIndexFormat();
    expect((await search({ search: 'curlew estuary' })).slugs).toEqual([]);
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.searchIndexFormat }));

    const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'scripts/admin.ts'), 'reindex-search'], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    expect(JSON.parse(stdout).templates).toBeGreaterThanOrEqual(1);
    expect(await pairsOf(t.id, [now])).toEqual(wantedPairs(now));
    expect((await search({ search: 'curlew estuary' })).slugs).toEqual(['curlew-call']);
    expect((await search({ search: 'curlew marsh' })).body.pagination).toEqual({
      limit: 20,
      offset: 0,
      total: 0,
      has_more: false,
      next_cursor: null,
    });
  });
});

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { handler } from '../../functions/workers/search-indexer.ts';
import { matchesFilter } from '../../lib/events/stream-filter.ts';
import { ORDERS, searchIndexItems, syncSearchIndex } from '../../lib/marketplace/search/search-index.ts';
import { SEARCH_INDEX_FILTER_PATTERN } from '../../lib/marketplace/search/search-indexer.ts';
import { readCounts } from '../../lib/marketplace/search/store.ts';
import type { TemplateItem } from '../../lib/marketplace/templates/template-item.ts';
import { batchWrite } from '../../lib/store/batch.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { indexItemsOf, indexSearch, streamRecordsSinceLastCall, wantedIndexItems } from '../support/search-index.ts';
import { publish } from './helpers.ts';

// These tests run the search indexer (the stream consumer) too, which takes a while on a busy machine.
vi.setConfig({ testTimeout: 90_000 });

/**
 * The search index follows the table's stream. An indexer killed halfway (a real SIGKILL of a child
 * process) leaves postings half written; the stream hands the records over again and the next run
 * converges: the template is found by its current words in every sort, by none of its old ones,
 * with no posting or word pair left behind and exact counters. Records arriving twice or out of order change nothing.
 */
const root = join(import.meta.dirname, '../..');
let author: TestUser;

const slugs = async (query: Record<string, string>) => {
  const res = await invoke('listTemplates', { caller: author, query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.map((s: { slug: string }) => s.slug);
};

async function template(id: string): Promise<TemplateItem> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.template(id), ConsistentRead: true }),
  );
  return Item as TemplateItem;
}

async function killIndexerAfter(id: string, writes: number): Promise<void> {
  const run = promisify(execFile)(
    process.execPath,
    [join(root, 'test/support/index-then-die.ts'), id, String(writes)],
    { cwd: root, env: process.env },
  );
  const died = (await run.then(
    () => undefined,
    (err: unknown) => err,
  )) as { signal?: string | null; code?: number; stderr?: string } | undefined;
  // Node runs the script itself (no loader's child in between): the kill is the process's own death.
  expect(died?.signal, JSON.stringify(died)).toBe('SIGKILL');
}

beforeAll(async () => {
  author = await createTestUser();
});

describe('search indexer', () => {
  it('converges after being killed halfway, twice, while the template changes', async () => {
    const t = await publish(author, {
      name: 'Narwhal tracker',
      slug: 'narwhal-tracker',
      description: 'Follows tusks.',
      category: 'data',
    });
    await streamRecordsSinceLastCall(); // the indexer's position: the publish is what it is about to handle
    const first = await template(t.id);
    expect(await slugs({ search: 'narwhal' })).toEqual([]);

    // Killed after the publish's word pairs (written first) and 10 of its postings.
    const written = searchIndexItems(first).pairs.length + 10;
    await killIndexerAfter(t.id, written);
    expect((await indexItemsOf(t.id, [first])).length).toBe(written);

    // Renamed and installed past a popularity bucket while the indexer is down; killed again mid-move.
    await invoke('updateTemplate', {
      caller: author,
      params: { id: t.id },
      body: { name: 'Walrus watcher', description: 'Counts whiskers.' },
    });
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.template(t.id),
        UpdateExpression: 'SET installs = :n, popKey = :n',
        ExpressionAttributeValues: { ':n': 37 },
      }),
    );
    await killIndexerAfter(t.id, 15); // 15 of the new words' pairs

    // The stream hands every record of the template over again (as after a failed batch).
    const records = (await streamRecordsSinceLastCall()).filter((r) => matchesFilter(r, SEARCH_INDEX_FILTER_PATTERN));
    expect((await handler({ Records: records })).batchItemFailures).toEqual([]);

    const now = await template(t.id);
    for (const sort of ORDERS) {
      expect(await slugs({ search: 'walrus', sort })).toEqual(['narwhal-tracker']);
      expect(await slugs({ search: 'whisker watch', sort, category: 'data' })).toEqual(['narwhal-tracker']);
      expect(await slugs({ search: 'tusks', sort })).toEqual([]);
    }
    expect(await slugs({ search: 'narwhal' })).toEqual(['narwhal-tracker']); // still in the slug
    expect(await indexItemsOf(t.id, [first, now])).toEqual(wantedIndexItems(now));
    const counts = await readCounts([
      'walr',
      'walrus',
      'data/walrus',
      'whisk',
      'tusk',
      'tusks',
      'data/tusks',
      'follows',
      'narwhal',
    ]);
    expect(Object.fromEntries(counts)).toEqual({
      walr: 1,
      walrus: 1,
      'data/walrus': 1,
      whisk: 1,
      tusk: 0,
      tusks: 0,
      'data/tusks': 0,
      follows: 0,
      narwhal: 1,
    });
  });

  it('changes nothing when records arrive again, late or out of order', async () => {
    const t = await publish(author, { name: 'Beluga pod', slug: 'beluga-pod', category: 'data' });
    await invoke('updateTemplate', {
      caller: author,
      params: { id: t.id },
      body: { name: 'Orca pod', category: 'other' },
    });
    await invoke('updateTemplate', { caller: author, params: { id: t.id }, body: { visibility: 'unlisted' } });
    await invoke('updateTemplate', { caller: author, params: { id: t.id }, body: { visibility: 'public' } });
    const records = (await streamRecordsSinceLastCall()).filter((r) => matchesFilter(r, SEARCH_INDEX_FILTER_PATTERN));
    expect(records.length).toBeGreaterThanOrEqual(4);
    // Newest first, then each one alone, oldest last: every sync reads the template as it is now.
    expect((await handler({ Records: [...records].reverse() })).batchItemFailures).toEqual([]);
    for (const record of [...records].reverse())
      expect((await handler({ Records: [record] })).batchItemFailures).toEqual([]);
    const now = await template(t.id);
    expect(await indexItemsOf(t.id, [now, { ...now, name: 'Beluga pod', category: 'data' }])).toEqual(
      wantedIndexItems(now),
    );
    expect(await slugs({ search: 'orca', category: 'other' })).toEqual(['beluga-pod']);
    expect(await slugs({ search: 'beluga' })).toEqual(['beluga-pod']); // the slug keeps the word
    expect(await slugs({ search: 'beluga', category: 'data' })).toEqual([]);
    expect(Object.fromEntries(await readCounts(['orca', 'other/orca', 'data/beluga', 'other/beluga']))).toEqual({
      orca: 1,
      'other/orca': 1,
      'data/beluga': 0,
      'other/beluga': 1,
    });
  });

  it('converges when two syncs of one template overlap (the stream and admin reindex-search), the older writing last', async () => {
    const t = await publish(author, {
      name: 'Gannet colony',
      slug: 'gannet-colony',
      description: 'Counts nests on cliffs.',
      category: 'data',
    });
    await indexSearch();
    const before = await template(t.id);
    await invoke('updateTemplate', {
      caller: author,
      params: { id: t.id },
      body: { description: 'Counts chicks on stacks.' },
    });
    const edited = await template(t.id);
    await streamRecordsSinceLastCall(); // the syncs below are run by hand

    // The first sync moves the index to the edit and is held before its writes...
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reachedWrites!: () => void;
    const atWrites = new Promise<void>((resolve) => (reachedWrites = resolve));
    const first = syncSearchIndex(t.id, {
      write: async (requests) => {
        reachedWrites();
        await held;
        await batchWrite(requests);
      },
    });
    await atWrites;
    // ...while the edit is undone and a second sync brings the index back to the first text, all the way.
    await invoke('updateTemplate', {
      caller: author,
      params: { id: t.id },
      body: { description: 'Counts nests on cliffs.' },
    });
    await syncSearchIndex(t.id);
    // Now the first one's writes land: the edit's postings and pairs, and deletes of the first text's.
    release();
    await first;

    const now = await template(t.id);
    expect(await indexItemsOf(t.id, [before, edited])).toEqual(wantedIndexItems(now));
    for (const sort of ORDERS) expect(await slugs({ search: 'gannet cliffs', sort })).toEqual(['gannet-colony']);
    expect(await slugs({ search: 'gannet stacks' })).toEqual([]);
  });

  it('leaves installs that stay inside a popularity bucket to the template (no sync, no posting write)', async () => {
    await indexSearch();
    const t = await publish(author, { name: 'Dolphin pod', slug: 'dolphin-pod', category: 'data' });
    await indexSearch();
    const state = async () =>
      (await db().send(new GetCommand({ TableName: tableName(), Key: keys.searchState(t.id), ConsistentRead: true })))
        .Item!['ver'];
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.template(t.id),
        UpdateExpression: 'SET installs = :n, popKey = :n',
        ExpressionAttributeValues: { ':n': 32 },
      }),
    );
    await indexSearch();
    const afterCrossing = await state();
    // 32 and 33 share the bucket [32, 34): the install below is not even read by the indexer.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.template(t.id),
        UpdateExpression: 'SET installs = :n, popKey = :n',
        ExpressionAttributeValues: { ':n': 33 },
      }),
    );
    await indexSearch();
    expect(await state()).toBe(afterCrossing);
  });
});

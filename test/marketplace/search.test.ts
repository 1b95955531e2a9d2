import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { indexSearch } from '../support/search-index.ts';
import { publish } from './helpers.ts';

// These tests run the search indexer (the stream consumer) too, which takes a while on a busy machine.
vi.setConfig({ testTimeout: 90_000 });

let author: TestUser;
const t: Record<string, any> = {};
// The search index follows the table's stream: each search first lets the indexer catch up.
const search = async (query: Record<string, string>) => {
  await indexSearch();
  const res = await invoke('listTemplates', { caller: author, query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
};
const found = async (query: Record<string, string>) => new Set((await search(query)).body.data.map((s: any) => s.slug));

beforeAll(async () => {
  author = await createTestUser();
  t['uptime'] = await publish(author, {
    name: 'HTTP Uptime Monitor',
    slug: 'uptime-monitor',
    description: 'Checks that an endpoint answers.',
    category: 'http',
  });
  t['checksum'] = await publish(author, {
    name: 'Artifact checksum',
    slug: 'artifact-sha',
    description: 'Verifies a delivered build against its SHA-256.',
    category: 'artifact',
  });
  t['rows'] = await publish(author, {
    name: 'Dataset row count',
    slug: 'dataset-rows',
    description: 'Counts rows of a CSV delivery. Café-grade.',
    category: 'data',
  });
  t['secret'] = await publish(author, {
    name: 'Uptime private',
    slug: 'uptime-private',
    description: 'Hidden endpoint monitor',
    category: 'http',
    visibility: 'private',
  });
  t['unlisted'] = await publish(author, {
    name: 'Uptime unlisted',
    slug: 'uptime-unlisted',
    description: 'Unlisted endpoint monitor',
    category: 'http',
    visibility: 'unlisted',
  });
}, 60_000);

describe('GET /templates?search=', () => {
  it('matches word prefixes in name, slug, description and category, case-insensitively', async () => {
    expect(await found({ search: 'UPT' })).toEqual(new Set(['uptime-monitor']));
    expect(await found({ search: 'monitor' })).toEqual(new Set(['uptime-monitor']));
    expect(await found({ search: 'sha' })).toEqual(new Set(['artifact-sha']));
    expect(await found({ search: 'deliver' })).toEqual(new Set(['artifact-sha', 'dataset-rows']));
    expect(await found({ search: 'artifact' })).toEqual(new Set(['artifact-sha']));
    expect(await found({ search: 'cafe' })).toEqual(new Set(['dataset-rows']));
    expect(await found({ search: 'endpo' })).toEqual(new Set(['uptime-monitor']));
    expect(await found({ search: 'zebra' })).toEqual(new Set());
  });

  it('requires every word to match, words longer than the indexed prefix included', async () => {
    expect(await found({ search: 'delivery rows' })).toEqual(new Set(['dataset-rows']));
    expect(await found({ search: 'delivered build' })).toEqual(new Set(['artifact-sha']));
    expect(await found({ search: 'deliverables' })).toEqual(new Set());
    expect(await found({ search: 'deliver uptime' })).toEqual(new Set());
    expect(await found({ search: 'http c' })).toEqual(new Set(['uptime-monitor']));
  });

  it('combines with category, answers in the sort asked for with an exact total', async () => {
    expect(await found({ search: 'deliver', category: 'data' })).toEqual(new Set(['dataset-rows']));
    const res = await search({ search: 'deliver', sort: 'recent' });
    expect(res.body.data.map((s: any) => s.slug)).toEqual(['dataset-rows', 'artifact-sha']);
    expect(res.body.pagination).toEqual({ limit: 20, offset: 0, total: 2, has_more: false, next_cursor: null });
  });

  it('pages search results with a cursor', async () => {
    const first = await search({ search: 'deliver', limit: '1' });
    expect(first.body.data.map((s: any) => s.slug)).toEqual(['dataset-rows']);
    expect(first.body.pagination).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const second = await search({ search: 'deliver', limit: '1', cursor: first.body.pagination.next_cursor });
    expect(second.body.data.map((s: any) => s.slug)).toEqual(['artifact-sha']);
    expect(second.body.pagination).toMatchObject({ offset: 1, has_more: false, next_cursor: null, total: 2 });
    const third = await search({ search: 'deliver', limit: '1', offset: '1' });
    expect(third.body.data.map((s: any) => s.slug)).toEqual(['artifact-sha']);
  });

  it('follows renames, category changes and visibility changes', async () => {
    const id = t['uptime'].id;
    await invoke('updateTemplate', {
      caller: author,
      params: { id },
      body: { name: 'Heartbeat watcher', category: 'other' },
    });
    expect(await found({ search: 'heartbeat' })).toEqual(new Set(['uptime-monitor']));
    expect(await found({ search: 'watch other' })).toEqual(new Set(['uptime-monitor']));
    expect(await found({ search: 'http' })).toEqual(new Set());
    expect(await found({ search: 'uptime' })).toEqual(new Set(['uptime-monitor'])); // still in the slug
    // The per-category posting lists follow the move too.
    expect(await found({ search: 'uptime', category: 'other' })).toEqual(new Set(['uptime-monitor']));
    expect(await found({ search: 'uptime', category: 'http' })).toEqual(new Set());

    await invoke('updateTemplate', { caller: author, params: { id }, body: { visibility: 'unlisted' } });
    expect(await found({ search: 'heartbeat' })).toEqual(new Set());
    await invoke('updateTemplate', { caller: author, params: { id: t['secret'].id }, body: { visibility: 'public' } });
    expect(await found({ search: 'uptime' })).toEqual(new Set(['uptime-private']));
    await invoke('updateTemplate', { caller: author, params: { id }, body: { visibility: 'public' } });
    expect(await found({ search: 'heartbeat' })).toEqual(new Set(['uptime-monitor']));
  });
});

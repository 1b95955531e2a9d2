import { beforeAll, describe, expect, it } from 'vitest';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { detailPaths, expectError, publish } from './helpers.ts';

// This file's table holds exactly the templates made here, so lists can be compared whole.
let author: TestUser;
const t: Record<string, any> = {};

async function installs(id: string, n: number) {
  const users = await Promise.all(Array.from({ length: n }, () => createTestUser()));
  await Promise.all(users.map((u) => invoke('installTemplate', { caller: u, params: { id } })));
}
async function rate(id: string, ratings: number[]) {
  for (const rating of ratings)
    await invoke('createReview', { caller: await createTestUser(), params: { id }, body: { rating, title: 'ok' } });
}
const ids = (res: any) => res.body.data.map((s: any) => s.id);
const list = (query: Record<string, string>) => invoke('listTemplates', { caller: author, query });

beforeAll(async () => {
  author = await createTestUser();
  for (const [key, category] of [
    ['a', 'http'],
    ['b', 'http'],
    ['c', 'code'],
    ['d', 'data'],
    ['e', 'http'],
  ] as const)
    t[key] = await publish(author, { category });
  t['priv'] = await publish(author, { category: 'http', visibility: 'private' });
  t['unl'] = await publish(author, { category: 'http', visibility: 'unlisted' });
  await installs(t['b'].id, 3);
  await installs(t['d'].id, 2);
  await installs(t['a'].id, 1);
  await installs(t['priv'].id, 0);
  await rate(t['c'].id, [5, 4]); // 4.5 × 2
  await rate(t['a'].id, [5]); //    5.0 × 1
  await rate(t['e'].id, [4, 5]); // 4.5 × 2, newer than c
  await rate(t['b'].id, [2]);
}, 120_000);

describe('GET /templates', () => {
  it('lists public templates only, popular (installs desc) by default', async () => {
    const res = await list({});
    expect(res.status).toBe(200);
    expect(ids(res).slice(0, 3)).toEqual([t['b'].id, t['d'].id, t['a'].id]);
    expect(new Set(ids(res))).toEqual(new Set(['a', 'b', 'c', 'd', 'e'].map((k) => t[k].id)));
    expect(res.body.pagination).toEqual({ limit: 20, offset: 0, total: 5, has_more: false, next_cursor: null });
    expect(res.body.data[0]).toEqual({
      ...t['b'],
      stats: { installs: 3, rating_avg: 2, rating_count: 1, contracts_created: 0 },
      schema: undefined,
      versions: undefined,
      quarantine: undefined,
    });
  });

  it('sorts by recent and by rating (average, then count)', async () => {
    expect(ids(await list({ sort: 'recent' }))).toEqual(['e', 'd', 'c', 'b', 'a'].map((k) => t[k].id));
    const rated = ids(await list({ sort: 'rating' }));
    expect(rated.slice(0, 4)).toEqual([t['a'].id, ...rated.slice(1, 3), t['b'].id]);
    expect(new Set(rated.slice(1, 3))).toEqual(new Set([t['c'].id, t['e'].id]));
    expect(rated[4]).toBe(t['d'].id);
  });

  it('filters by category with an exact total', async () => {
    const res = await list({ category: 'http', sort: 'popular' });
    expect(ids(res)).toEqual([t['b'].id, t['a'].id, t['e'].id]);
    expect(res.body.pagination.total).toBe(3);
    expect((await list({ category: 'document' })).body).toEqual({
      data: [],
      pagination: { limit: 20, offset: 0, total: 0, has_more: false, next_cursor: null },
    });
  });

  it('pages with offset and with cursor, to the same result', async () => {
    const all = ids(await list({ sort: 'recent' }));
    const byOffset = [];
    for (let offset = 0; offset < 5; offset += 2)
      byOffset.push(...ids(await list({ sort: 'recent', limit: '2', offset: String(offset) })));
    expect(byOffset).toEqual(all);

    const byCursor: string[] = [];
    let res = await list({ sort: 'recent', limit: '2' });
    expect(res.body.pagination).toMatchObject({ limit: 2, offset: 0, total: 5, has_more: true });
    byCursor.push(...ids(res));
    while (res.body.pagination.next_cursor) {
      res = await list({ sort: 'recent', limit: '2', cursor: res.body.pagination.next_cursor });
      byCursor.push(...ids(res));
    }
    expect(byCursor).toEqual(all);
    expect(res.body.pagination).toMatchObject({ offset: 4, has_more: false, next_cursor: null });
  });

  it('refuses a cursor made for another sort, category or search, and an edited one', async () => {
    const cursor = (await list({ sort: 'recent', limit: '1' })).body.pagination.next_cursor;
    const queries: Record<string, string>[] = [
      { sort: 'popular', cursor },
      { sort: 'recent', category: 'http', cursor },
      { cursor },
      { search: 'uptime', cursor },
    ];
    for (const query of queries) {
      const res = await list(query);
      expectError(res, 400, 'validation_error');
      expect(detailPaths(res)).toEqual(['cursor']);
    }
    const body = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    body.k.listAll = 'CAT#http';
    for (const bad of [
      '%%%',
      Buffer.from('{"s":1}').toString('base64url'),
      Buffer.from(JSON.stringify(body)).toString('base64url'),
    ]) {
      expect(detailPaths(await list({ sort: 'recent', cursor: bad }))).toEqual(['cursor']);
    }
  });

  it('answers malformed query values with 400 and details', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ limit: '0' }, 'limit'],
      [{ limit: '101' }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ limit: '1.5' }, 'limit'],
      [{ offset: '-1' }, 'offset'],
      [{ offset: '10001' }, 'offset'],
      [{ sort: 'newest' }, 'sort'],
      [{ category: 'games' }, 'category'],
      [{ color: 'red' }, 'color'],
      [{ offset: '2', cursor: 'abc' }, 'offset'],
      [{ search: '   ' }, 'search'],
      [{ search: '!!!' }, 'search'],
      [{ search: 'a b' }, 'search'],
    ];
    for (const [query, path] of cases) {
      const res = await list(query);
      expectError(res, 400, 'validation_error');
      expect(detailPaths(res), JSON.stringify(query)).toEqual([path]);
    }
  });

  it('drops a template from lists and counts when it goes private and brings it back when public', async () => {
    await invoke('updateTemplate', { caller: author, params: { id: t['b'].id }, body: { visibility: 'private' } });
    let res = await list({});
    expect(ids(res)).not.toContain(t['b'].id);
    expect(res.body.pagination.total).toBe(4);
    await invoke('updateTemplate', { caller: author, params: { id: t['b'].id }, body: { visibility: 'public' } });
    res = await list({});
    expect(ids(res)[0]).toBe(t['b'].id);
    expect(res.body.pagination.total).toBe(5);
  });
});

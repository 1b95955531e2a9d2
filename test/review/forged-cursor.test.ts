import { beforeAll, describe, expect, it } from 'vitest';
import { publish } from '../marketplace/helpers.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';

/**
 * Cursors are base64url JSON that a client can edit. An edited cursor whose key values had the
 * wrong type for the index (a string where the sort key is a number), a number DynamoDB cannot
 * take, or a string over DynamoDB's 1 KiB key limit in bytes reached the Query and made a 500.
 * docs/marketplace.md promises a 400 for an edited cursor.
 */
const encode = (body: unknown) => Buffer.from(JSON.stringify(body)).toString('base64url');
const decode = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));

let alice: TestUser;
let popular: { s: string; k: Record<string, string | number>; p: number };
let recent: { s: string; k: Record<string, string | number>; p: number };

beforeAll(async () => {
  alice = await createTestUser();
  await publish(alice);
  await publish(alice);
  const a = await invoke('listTemplates', { caller: alice, query: { limit: '1' } });
  const b = await invoke('listTemplates', { caller: alice, query: { limit: '1', sort: 'recent' } });
  popular = decode(a.body.pagination.next_cursor);
  recent = decode(b.body.pagination.next_cursor);
});

const expectCursor400 = (res: { status: number; body: any }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('validation_error');
  expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(['cursor']);
};

describe('edited cursors are a 400, never a 500', () => {
  it('the genuine cursors still page', async () => {
    expect(
      (await invoke('listTemplates', { caller: alice, query: { limit: '1', cursor: encode(popular) } })).status,
    ).toBe(200);
    expect(
      (await invoke('listTemplates', { caller: alice, query: { limit: '1', sort: 'recent', cursor: encode(recent) } }))
        .status,
    ).toBe(200);
  });

  it('a string where the index sort key is a number', async () => {
    const cursor = encode({ ...popular, k: { ...popular.k, popKey: 'abc' } });
    expectCursor400(await invoke('listTemplates', { caller: alice, query: { limit: '1', cursor } }));
  });

  it('a number where the index sort key is a string', async () => {
    const cursor = encode({ ...recent, k: { ...recent.k, recentKey: 7 } });
    expectCursor400(await invoke('listTemplates', { caller: alice, query: { limit: '1', sort: 'recent', cursor } }));
  });

  it('a number beyond what DynamoDB and JavaScript hold exactly', async () => {
    const cursor = encode({ ...popular, k: { ...popular.k, popKey: 1e300 } });
    expectCursor400(await invoke('listTemplates', { caller: alice, query: { limit: '1', cursor } }));
  });

  it('a key string over 1 KiB in UTF-8 (though under 1024 characters)', async () => {
    const cursor = encode({ ...recent, k: { ...recent.k, SK: 'é'.repeat(600) } });
    expectCursor400(await invoke('listTemplates', { caller: alice, query: { limit: '1', sort: 'recent', cursor } }));
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_OFFSET, MAX_SEARCH_OFFSET } from '../../lib/marketplace/request-schemas.ts';
import { publish } from '../marketplace/helpers.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { indexSearch } from '../support/search-index.ts';
import { expectRefusedAt } from './support.ts';

/**
 * A search page skips `offset` matches by reading each one's template item and holding it: with
 * offset 10,000 one request could read 20,202 items and hold 10,101. With `search` the offset is
 * capped lower; lists without search keep MAX_OFFSET (they skip index keys, not items).
 */
let alice: TestUser;
beforeAll(async () => {
  alice = await createTestUser();
});

const list = (query: Record<string, string>) => invoke('listTemplates', { caller: alice, query });

describe('offset with search', () => {
  it(`is taken up to ${MAX_SEARCH_OFFSET}`, async () => {
    const res = await list({ search: 'uptime', offset: String(MAX_SEARCH_OFFSET), limit: '100' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.pagination.offset).toBe(MAX_SEARCH_OFFSET);
  });

  it('one more is a 400 on offset that points to cursor', async () => {
    expectRefusedAt(await list({ search: 'uptime', offset: String(MAX_SEARCH_OFFSET + 1) }), 'offset', /cursor/);
  });

  it('without search the list offset bound is unchanged', async () => {
    expect((await list({ offset: String(MAX_OFFSET) })).status).toBe(200);
    expect((await list({ offset: String(MAX_OFFSET + 1) })).status).toBe(400);
  });

  it(`a search cursor edited to owe more than ${MAX_SEARCH_OFFSET} skipped matches is a 400 on cursor (it bought back the reads the cap refuses)`, async () => {
    await publish(alice);
    await publish(alice);
    await indexSearch();
    const page = await list({ search: 'uptime', limit: '1' });
    expect(page.status).toBe(200);
    const real = JSON.parse(Buffer.from(page.body.pagination.next_cursor, 'base64url').toString('utf8'));
    const edited = (o: number, p = MAX_OFFSET) => Buffer.from(JSON.stringify({ ...real, o, p })).toString('base64url');
    expect((await list({ search: 'uptime', limit: '1', cursor: edited(MAX_SEARCH_OFFSET) })).status).toBe(200);
    // What a cursor owes is part of its position: owing more gave a negative total.
    expectRefusedAt(await list({ search: 'uptime', limit: '1', cursor: edited(2, 1) }), 'cursor', /Not a cursor/);
    expectRefusedAt(
      await list({ search: 'uptime', limit: '1', cursor: edited(MAX_SEARCH_OFFSET + 1) }),
      'cursor',
      /Not a cursor/,
    );
    expectRefusedAt(await list({ search: 'uptime', limit: '1', cursor: edited(MAX_OFFSET) }), 'cursor', /Not a cursor/);
  });
});

import { describe, expect, it } from 'vitest';
import { MAX_AGENTS_PER_ACCOUNT } from '../../lib/limits/numbers.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';

/** The per-account agent cap: a counter taken in the same transaction as each agent (DynamoDB Local). */
const create = (caller: TestUser, i: number) => invoke('createAgent', { caller, body: { name: `bot ${i}` } });

async function allAgentIds(caller: TestUser): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: { data: { id: string }[]; next_cursor: string | null } } = await invoke('listAgents', {
      caller,
      query: { limit: '100', ...(cursor ? { cursor } : {}) },
    });
    ids.push(...page.body.data.map((a) => a.id));
    cursor = page.body.next_cursor;
  } while (cursor);
  return ids;
}

describe(`agents per account (cap ${MAX_AGENTS_PER_ACCOUNT})`, () => {
  it('lets exactly the cap of many parallel creates succeed; the rest get 409 limit_exceeded and create nothing', async () => {
    const owner = await createTestUser();
    const attempts = MAX_AGENTS_PER_ACCOUNT + 30;
    const results = await Promise.all(Array.from({ length: attempts }, (_, i) => create(owner, i)));
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(created).toHaveLength(MAX_AGENTS_PER_ACCOUNT);
    expect(refused).toHaveLength(attempts - MAX_AGENTS_PER_ACCOUNT);
    for (const res of refused) {
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: { code: 'limit_exceeded', message: expect.stringContaining(String(MAX_AGENTS_PER_ACCOUNT)) } });
    }
    const stored = await allAgentIds(owner);
    expect(stored).toHaveLength(MAX_AGENTS_PER_ACCOUNT);
    expect(new Set(stored)).toEqual(new Set(created.map((r) => r.body.id)));

    // Still at the cap afterwards, one at a time too.
    expect((await create(owner, attempts)).status).toBe(409);
  }, 120_000);

  it('counts per account: another account is not affected', async () => {
    const [full, other] = await Promise.all([createTestUser(), createTestUser()]);
    for (let i = 0; i < MAX_AGENTS_PER_ACCOUNT; i += 25) await Promise.all(Array.from({ length: 25 }, (_, j) => create(full, i + j)));
    expect((await create(full, -1)).status).toBe(409);
    const res = await create(other, 0);
    expect(res.status).toBe(201);
    expect(await allAgentIds(other)).toEqual([res.body.id]);
  }, 120_000);
});

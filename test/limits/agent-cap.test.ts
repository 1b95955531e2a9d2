import { describe, expect, it } from 'vitest';
import { MAX_AGENTS_PER_ACCOUNT } from '../../lib/core/settings.ts';
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

/** `count` creates, `batch` at a time (the setup part of a test, not the race it is about). */
async function fill(owner: TestUser, count: number, batch = 10): Promise<void> {
  for (let i = 0; i < count; i += batch) {
    const results = await Promise.all(
      Array.from({ length: Math.min(batch, count - i) }, (_, j) => create(owner, i + j)),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
  }
}

function expectLimitExceeded(res: { status: number; body: any }) {
  expect(res.status).toBe(409);
  expect(res.body).toEqual({
    error: { code: 'limit_exceeded', message: expect.stringContaining(String(MAX_AGENTS_PER_ACCOUNT)) },
  });
}

describe(`agents per account (cap ${MAX_AGENTS_PER_ACCOUNT})`, () => {
  it('lets exactly the remaining room of many parallel creates at the cap succeed; the rest get 409 limit_exceeded and create nothing', async () => {
    const owner = await createTestUser();
    const room = 5;
    await fill(owner, MAX_AGENTS_PER_ACCOUNT - room);
    const racers = 40;
    const results = await Promise.all(Array.from({ length: racers }, (_, i) => create(owner, 1000 + i)));
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(room);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(racers - room);
    for (const res of refused) expectLimitExceeded(res);

    const stored = await allAgentIds(owner);
    expect(stored).toHaveLength(MAX_AGENTS_PER_ACCOUNT);
    for (const res of created) expect(stored).toContain(res.body.id);
    expectLimitExceeded(await create(owner, -1));
  }, 120_000);

  it('never goes over the cap when more creates race than there is room, and the count stays exact: one-by-one creates then fill to the cap exactly', async () => {
    const owner = await createTestUser();
    const room = 20;
    await fill(owner, MAX_AGENTS_PER_ACCOUNT - room);
    // More at once than one key's burst allows through API Gateway (API_KEY_LIMITS.burst = 40).
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => create(owner, 1000 + i)));
    const created = results.filter((r) => r.status === 201).length;
    expect(created).toBeLessThanOrEqual(room);
    for (const res of results.filter((r) => r.status !== 201)) {
      // At the cap, or still contended after the transaction's retries (nothing written, try again).
      if (res.status === 429) expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      else expectLimitExceeded(res);
    }
    expect(await allAgentIds(owner)).toHaveLength(MAX_AGENTS_PER_ACCOUNT - room + created);

    let more = 0;
    for (;;) {
      const res = await create(owner, 10_000 + more);
      if (res.status !== 201) {
        expectLimitExceeded(res);
        break;
      }
      more++;
    }
    expect(created + more).toBe(room);
    expect(await allAgentIds(owner)).toHaveLength(MAX_AGENTS_PER_ACCOUNT);
  }, 120_000);

  it('counts per account: another account is not affected', async () => {
    const [full, other] = await Promise.all([createTestUser(), createTestUser()]);
    await fill(full, MAX_AGENTS_PER_ACCOUNT);
    expectLimitExceeded(await create(full, -1));
    const res = await create(other, 0);
    expect(res.status).toBe(201);
    expect(await allAgentIds(other)).toEqual([res.body.id]);
  }, 120_000);
});

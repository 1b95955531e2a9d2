import { beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createContract, publishTemplate, SIMPLE_SCHEMA } from '../events/support.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';

/** GET /api/v1/contracts?status=&agent_id=: the caller's contracts as buyer or seller, newest first, from link items (no Scan). */
let alice: TestUser; // buyer
let bob: TestUser; // author of the template: the seller of every contract here
let mallory: TestUser;
let aliceAgents: string[];
let bobAgent: string;
/** Oldest first: [id, alice's agent, status]. */
const made: { id: string; agent: string; status: string }[] = [];

beforeAll(async () => {
  [alice, bob, mallory] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
  aliceAgents = [await createAgent(alice), await createAgent(alice)];
  bobAgent = await createAgent(bob);
  const templateId = await publishTemplate(bob, SIMPLE_SCHEMA);
  for (let i = 0; i < 7; i++) {
    const agent = aliceAgents[i % 2]!;
    const id = await createContract(alice, agent, templateId, i < 3 ? { seller_agent_id: bobAgent } : {});
    let status = 'CREATED';
    if (i % 3 !== 0) {
      expect((await invoke('fundContract', { caller: alice, params: { id } })).status).toBe(200);
      status = 'FUNDED';
    }
    if (i % 3 === 2) {
      expect((await invoke('refundContract', { caller: bob, params: { id } })).status).toBe(200);
      status = 'REFUNDED';
    }
    made.push({ id, agent, status });
  }
});

const list = (caller: TestUser, query: Record<string, string> = {}) => invoke('listContracts', { caller, query });

async function all(caller: TestUser, query: Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { status: number; body: { data: { id: string }[]; next_cursor: string | null } } = await list(caller, {
      ...query,
      ...(cursor ? { cursor } : {}),
    });
    expect(page.status).toBe(200);
    expect(page.body.data.length).toBeLessThanOrEqual(Number(query['limit'] ?? 20));
    ids.push(...page.body.data.map((c) => c.id));
    cursor = page.body.next_cursor;
  } while (cursor);
  return ids;
}

const newestFirst = (rows: typeof made) => [...rows].reverse().map((r) => r.id);

describe('GET /contracts', () => {
  it('lists the buyer’s and the seller’s contracts, newest first, as full contracts', async () => {
    const res = await list(alice);
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual(newestFirst(made));
    expect(res.body.next_cursor).toBeNull();
    const get = await invoke('getContract', { caller: alice, params: { id: made[6]!.id } });
    expect(res.body.data[0]).toEqual(get.body);
    expect(await all(bob, {})).toEqual(newestFirst(made));
    expect((await list(mallory)).body).toEqual({ data: [], next_cursor: null });
  });

  it('pages with next_cursor, every contract once', async () => {
    expect(await all(alice, { limit: '2' })).toEqual(newestFirst(made));
    expect(await all(bob, { limit: '3', status: 'FUNDED' })).toEqual(
      newestFirst(made.filter((r) => r.status === 'FUNDED')),
    );
  });

  it('filters by status and by one of the caller’s agents, together too', async () => {
    for (const status of ['CREATED', 'FUNDED', 'REFUNDED', 'RELEASED']) {
      expect(await all(alice, { status, limit: '2' }), status).toEqual(
        newestFirst(made.filter((r) => r.status === status)),
      );
    }
    for (const agent of aliceAgents) {
      expect(await all(alice, { agent_id: agent, limit: '2' })).toEqual(
        newestFirst(made.filter((r) => r.agent === agent)),
      );
      expect(await all(alice, { agent_id: agent, status: 'FUNDED' })).toEqual(
        newestFirst(made.filter((r) => r.agent === agent && r.status === 'FUNDED')),
      );
    }
    expect(await all(bob, { agent_id: bobAgent })).toEqual(newestFirst(made.slice(0, 3)));
  });

  it('is 404 for an agent that is not the caller’s, 400 for a bad filter or cursor', async () => {
    expect((await list(mallory, { agent_id: aliceAgents[0]! })).status).toBe(404);
    expect((await list(bob, { agent_id: aliceAgents[0]! })).status).toBe(404);
    for (const query of [
      { status: 'funded' },
      { status: 'DONE' },
      { agent_id: 'nope' },
      { cursor: 'x' },
      { limit: '0' },
      { limit: '101' },
      { other: '1' },
    ] as Record<string, string>[]) {
      const res = await list(alice, query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });
});

import { describe, expect, it } from 'vitest';
import { createTestUser, invoke } from '../support/lambda.ts';

describe('POST /api/v1/agents', () => {
  it('creates an agent with no webhook, and a Location', async () => {
    const user = await createTestUser();
    const res = await invoke('createAgent', { caller: user, body: { name: 'buyer bot' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^agt_[0-9A-Z]{26}$/),
      name: 'buyer bot',
      webhook_url: null,
      events: [],
      webhook_status: 'DISABLED',
      webhook_disabled_reason: null,
      last_verified_at: null,
      schema_versions: {},
      rate_limit: null,
      filter: null,
      filter_never_matches: false,
      headers: [],
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      webhook_circuit: { state: 'closed', failures: 0, open_until: null, max_requests_at_once: 2 },
    });
    expect(res.headers['location']).toBe(`/api/v1/agents/${res.body.id}`);
  });

  it.each([
    ['no name', {}],
    ['an empty name', { name: '  ' }],
    ['a long name', { name: 'x'.repeat(101) }],
    ['a number', { name: 5 }],
    ['an unknown field', { name: 'a', webhook_url: 'https://hooks.example.com/' }],
  ])('refuses %s with 400 validation_error', async (_what, body) => {
    const user = await createTestUser();
    const res = await invoke('createAgent', { caller: user, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'validation_error',
      details: [expect.objectContaining({ path: expect.any(String) })],
    });
  });

  it('needs an authenticated caller', async () => {
    const res = await invoke('createAgent', { body: { name: 'x' } });
    expect(res.status).toBe(401);
  });
});

describe('GET /api/v1/agents', () => {
  it("lists the caller's own agents only, newest first, page by page", async () => {
    const [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
    const ids: string[] = [];
    for (const name of ['a1', 'a2', 'a3'])
      ids.push((await invoke('createAgent', { caller: alice, body: { name } })).body.id);
    await invoke('createAgent', { caller: bob, body: { name: 'b1' } });

    const all = await invoke('listAgents', { caller: alice });
    expect(all.status).toBe(200);
    expect(all.body.data.map((a: { id: string }) => a.id)).toEqual([...ids].reverse());
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.data[0]).not.toHaveProperty('webhook_secret');

    const first = await invoke('listAgents', { caller: alice, query: { limit: '2' } });
    expect(first.body.data.map((a: { name: string }) => a.name)).toEqual(['a3', 'a2']);
    const second = await invoke('listAgents', { caller: alice, query: { limit: '2', cursor: first.body.next_cursor } });
    expect(second.body).toEqual({ data: [expect.objectContaining({ name: 'a1' })], next_cursor: null });

    const none = await invoke('listAgents', { caller: await createTestUser() });
    expect(none.body).toEqual({ data: [], next_cursor: null });
  });

  it.each<Record<string, string>>([
    { limit: '0' },
    { limit: '101' },
    { limit: 'ten' },
    { cursor: 'not-a-cursor' },
    { sort: 'name' },
  ])('refuses query %o with 400', async (query) => {
    const res = await invoke('listAgents', { caller: await createTestUser(), query });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
  });
});

describe('GET /api/v1/agents/:id', () => {
  it('returns the owner its agent, and 404 to everyone else and for ids that are not agent ids', async () => {
    const [owner, other] = await Promise.all([createTestUser(), createTestUser()]);
    const { body: agent } = await invoke('createAgent', { caller: owner, body: { name: 'seller bot' } });
    expect(await invoke('getAgent', { caller: owner, params: { id: agent.id } })).toMatchObject({
      status: 200,
      body: agent,
    });
    for (const [caller, id] of [
      [other, agent.id],
      [owner, 'agt_00000000000000000000000000'],
      [owner, 'agt_nope'],
      [owner, agent.id.toLowerCase()],
      [owner, '../etc/passwd'],
    ] as const) {
      const res = await invoke('getAgent', { caller, params: { id } });
      expect(res.status, id).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

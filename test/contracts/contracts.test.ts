import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { createAgent, createContract, feedOf, publishTemplate, SIMPLE_SCHEMA } from '../events/support.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';

const SCHEMA = {
  variables: [
    { name: 'url', type: 'url' },
    { name: 'method', type: 'string', enum: ['GET', 'HEAD'], default: 'GET' },
    { name: 'timeout_ms', type: 'integer', required: false, default: 5000 },
    { name: 'threshold', type: 'number', required: false },
    { name: 'strict', type: 'boolean', required: false },
  ],
  checks: [
    {
      id: 'status',
      type: 'http_status',
      config: {
        request: { url: '{{url}}', method: '{{ method }}' },
        timeout_ms: '{{timeout_ms}}',
        label: 'check {{url}} within {{timeout_ms}} ms',
      },
    },
    { id: 'limit', type: 'threshold', config: { max: '{{threshold}}', note: 'strict={{strict}}' } },
  ],
};

// alice buys (agent_id), bob wrote the template and sells (seller_agent_id), eve is nobody here.
let alice: TestUser;
let bob: TestUser;
let eve: TestUser;
let aliceAgent: string;
let bobAgent: string;
let eveAgent: string;
let templateId: string;

beforeAll(async () => {
  [alice, bob, eve] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
  [aliceAgent, bobAgent, eveAgent] = await Promise.all([createAgent(alice), createAgent(bob), createAgent(eve)]);
  templateId = await publishTemplate(bob, SCHEMA);
});

const create = (body: Record<string, unknown>, caller: TestUser = alice) =>
  invoke('createContract', {
    caller,
    body: {
      template_id: templateId,
      variables: { url: 'https://example.com/health' },
      amount_cents: 50_000,
      agent_id: aliceAgent,
      ...body,
    },
  });

const detailPaths = (res: { body: any }) => (res.body.error.details as { path: string }[]).map((d) => d.path).sort();

describe('POST /contracts', () => {
  it('creates a contract: defaults filled, checks filled in with typed values, Location, contracts_created +1', async () => {
    const before = await db().send(new GetCommand({ TableName: tableName(), Key: keys.template(templateId) }));
    const res = await create({ seller_agent_id: bobAgent });
    expect(res.status).toBe(201);
    expect(res.headers['location']).toBe(`/api/v1/contracts/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^ctr_[0-9A-Z]{26}$/),
      template_id: templateId,
      template_version: '1.2.3',
      agent_id: aliceAgent,
      seller_agent_id: bobAgent,
      variables: { url: 'https://example.com/health', method: 'GET', timeout_ms: 5000 },
      amount_cents: 50_000,
      status: 'CREATED',
      checks: [
        {
          id: 'status',
          type: 'http_status',
          config: {
            request: { url: 'https://example.com/health', method: 'GET' },
            timeout_ms: 5000,
            label: 'check https://example.com/health within 5000 ms',
          },
        },
        { id: 'limit', type: 'threshold', config: { max: null, note: 'strict=' } },
      ],
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: res.body.created_at,
    });
    const after = await db().send(new GetCommand({ TableName: tableName(), Key: keys.template(templateId) }));
    expect(after.Item!['contracts_created']).toBe((before.Item!['contracts_created'] as number) + 1);
  });

  it('takes the template by its slug too, like every template route, and records its UUID', async () => {
    const { slug } = (await invoke('getTemplate', { caller: alice, params: { id: templateId } })).body as {
      slug: string;
    };
    const res = await create({ template_id: slug });
    expect(res.status).toBe(201);
    expect(res.body.template_id).toBe(templateId);
    expect((await create({ template_id: 'no-such-template-slug' })).status).toBe(404);
  });

  it('a seller agent is optional (null when absent)', async () => {
    const res = await create({});
    expect(res.status).toBe(201);
    expect(res.body.seller_agent_id).toBeNull();
  });

  it('checks variables against the template: required, types, enum, unknown names — every problem at once', async () => {
    const res = await create({
      variables: { method: 'POST', timeout_ms: 1.5, threshold: 'high', strict: 'yes', extra: 1 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(detailPaths(res)).toEqual([
      'variables.extra',
      'variables.method',
      'variables.strict',
      'variables.threshold',
      'variables.timeout_ms',
      'variables.url',
    ]);
  });

  it('refuses a url variable that is not an http(s) URL', async () => {
    for (const url of ['not a url', 'ftp://example.com/x', 42]) {
      const res = await create({ variables: { url } });
      expect(res.status).toBe(400);
      expect(detailPaths(res)).toEqual(['variables.url']);
    }
  });

  it('amount_cents is an integer from 1 to 10^12', async () => {
    for (const amount_cents of [0, -1, 1.5, 1e12 + 1, '100', null]) {
      const res = await create({ amount_cents });
      expect(res.status, String(amount_cents)).toBe(400);
      expect(detailPaths(res)).toEqual(['amount_cents']);
    }
    for (const amount_cents of [1, 1e12]) expect((await create({ amount_cents })).status).toBe(201);
  });

  it('rejects unknown fields, a missing field, a malformed template id, and a non-JSON body', async () => {
    expect(detailPaths(await create({ note: 'x' }))).toEqual(['note']);
    const missing = await invoke('createContract', {
      caller: alice,
      body: { template_id: templateId, amount_cents: 1, agent_id: aliceAgent },
    });
    expect(detailPaths(missing)).toEqual(['variables']);
    expect(detailPaths(await create({ template_id: 'Not a slug!' }))).toEqual(['template_id']);
    const text = await invoke('createContract', {
      caller: alice,
      body: 'amount=1',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(text.status).toBe(415);
  });

  it('the buyer agent must be the caller’s; the seller must exist and differ', async () => {
    const notMine = await create({ agent_id: bobAgent });
    expect(notMine.status).toBe(404);
    expect(notMine.body.error.code).toBe('not_found');
    expect((await create({ agent_id: 'agt_00000000000000000000000000' })).status).toBe(404);
    const same = await create({ seller_agent_id: aliceAgent });
    expect(same.status).toBe(400);
    expect(detailPaths(same)).toEqual(['seller_agent_id']);
  });

  it('the seller agent must be the template author’s: an unknown agent and somebody else’s get the very same answer, and nothing is written', async () => {
    const before = [await feedOf(eve, eveAgent), await feedOf(alice, aliceAgent)];
    const answers = await Promise.all([
      create({ seller_agent_id: 'agt_00000000000000000000000000' }),
      create({ seller_agent_id: eveAgent }), // exists, but eve did not write the template
      create({ agent_id: eveAgent, seller_agent_id: aliceAgent }, eve), // eve names a stranger's agent
    ]);
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: {
          code: 'validation_error',
          message: 'The request is not valid.',
          details: [{ path: 'seller_agent_id', message: "Expected an agent of the template's author." }],
        },
      });
    }
    expect([await feedOf(eve, eveAgent), await feedOf(alice, aliceAgent)]).toEqual(before);
  });

  it('a private template is usable by its author only; unknown templates are 404', async () => {
    const privateId = await publishTemplate(eve, SIMPLE_SCHEMA, 'private');
    const other = await create({ template_id: privateId, variables: {} });
    expect(other.status).toBe(404);
    const eveAgent = await createAgent(eve);
    expect((await create({ template_id: privateId, variables: {}, agent_id: eveAgent }, eve)).status).toBe(201);
    expect((await create({ template_id: '00000000-0000-4000-8000-000000000000' })).status).toBe(404);
    const unlisted = await publishTemplate(eve, SIMPLE_SCHEMA, 'unlisted');
    expect((await create({ template_id: unlisted, variables: {} })).status).toBe(201);
  });
});

describe('GET /contracts/:id', () => {
  it('without a seller agent the template’s author is still the seller party: sees it, and only the buyer’s agent gets events', async () => {
    const id = await createContract(alice, aliceAgent, templateId, { variables: { url: 'https://a.example' } });
    expect((await invoke('getContract', { caller: bob, params: { id } })).status).toBe(200);
    expect((await invoke('getContract', { caller: eve, params: { id } })).status).toBe(404);
    expect((await invoke('fundContract', { caller: alice, params: { id } })).status).toBe(200);
    expect((await invoke('refundContract', { caller: bob, params: { id } })).status).toBe(200);
    expect((await feedOf(bob, bobAgent)).filter((e) => e.data.contract_id === id)).toEqual([]);
    expect((await feedOf(alice, aliceAgent)).filter((e) => e.data.contract_id === id).map((e) => e.type)).toEqual([
      'contract.funded',
      'contract.refunded',
    ]);
  });

  it('is visible to the owners of both agents, and to nobody else (404)', async () => {
    const id = await createContract(alice, aliceAgent, templateId, {
      variables: { url: 'https://a.example' },
      seller_agent_id: bobAgent,
    });
    for (const caller of [alice, bob]) {
      const res = await invoke('getContract', { caller, params: { id } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, status: 'CREATED', agent_id: aliceAgent, seller_agent_id: bobAgent });
      expect(res.body).not.toHaveProperty('party_owner_ids');
    }
    for (const [caller, cid] of [
      [eve, id],
      [alice, 'ctr_00000000000000000000000000'],
      [alice, 'nope'],
    ] as const) {
      const res = await invoke('getContract', { caller, params: { id: cid } });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

describe('transitions', () => {
  type Move = { route: string; body?: unknown };
  const fund: Move = { route: 'fundContract' };
  const pass: Move = { route: 'recordVerification', body: { passed: true, results: { http_status: 200 } } };
  const failCheck: Move = { route: 'recordVerification', body: { passed: false } };
  const release: Move = { route: 'releaseContract' };
  const refund: Move = { route: 'refundContract' };
  const all = [fund, pass, release, refund];

  /** The party whose role takes the step in the walks below (the role table has its own test). */
  const byRole = (m: Move) => (m.route === 'recordVerification' || m.route === 'refundContract' ? bob : alice);
  const move = (id: string, m: Move, caller: TestUser = byRole(m)) =>
    invoke(m.route, { caller, params: { id }, ...(m.body ? { body: m.body } : {}) });

  /** A contract walked through `path` (each step must succeed). */
  async function contractAt(path: Move[]): Promise<string> {
    const id = await createContract(alice, aliceAgent, templateId, {
      variables: { url: 'https://a.example' },
      seller_agent_id: bobAgent,
    });
    for (const m of path) expect((await move(id, m)).status).toBe(200);
    return id;
  }

  const states: Record<string, { path: Move[]; allowed: Move[] }> = {
    CREATED: { path: [], allowed: [fund] },
    FUNDED: { path: [fund], allowed: [pass, release, refund] },
    VERIFIED: { path: [fund, pass], allowed: [release] },
    VERIFICATION_FAILED: { path: [fund, failCheck], allowed: [refund] },
    RELEASED: { path: [fund, release], allowed: [] },
    REFUNDED: { path: [fund, refund], allowed: [] },
  };

  it.each(Object.entries(states))(
    'from %s every move not in the table is 409 invalid_transition and changes nothing',
    async (status, { path, allowed }) => {
      const id = await contractAt(path);
      const eventsBefore = (await feedOf(alice, aliceAgent)).length;
      for (const m of all.filter((m) => !allowed.includes(m))) {
        for (const caller of [alice, bob]) {
          const res = await move(id, m, caller);
          expect(res.status, `${m.route} from ${status}`).toBe(409);
          expect(res.body.error.code).toBe('invalid_transition');
        }
      }
      expect((await invoke('getContract', { caller: alice, params: { id } })).body.status).toBe(status);
      expect((await feedOf(alice, aliceAgent)).length).toBe(eventsBefore);
    },
  );

  it('walks CREATED → FUNDED → VERIFIED → RELEASED, one event per party agent per move, data as documented', async () => {
    const id = await contractAt([]);
    const steps: [Move, string, string][] = [
      [fund, 'FUNDED', 'contract.funded'],
      [pass, 'VERIFIED', 'contract.verification.completed'],
      [release, 'RELEASED', 'contract.released'],
    ];
    for (const [m, status, type] of steps) {
      const res = await move(id, m);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(status);
      for (const [owner, agent] of [
        [alice, aliceAgent],
        [bob, bobAgent],
      ] as const) {
        const mine = (await feedOf(owner, agent)).filter((e) => e.data.contract_id === id);
        expect(mine.at(-1)).toMatchObject({
          type,
          agent_id: agent,
          data: { contract_id: id, status, amount_cents: 12_345 },
        });
      }
    }
    const aliceCopies = (await feedOf(alice, aliceAgent)).filter((e) => e.data.contract_id === id);
    const bobCopies = (await feedOf(bob, bobAgent)).filter((e) => e.data.contract_id === id);
    expect(aliceCopies.map((e) => e.type)).toEqual([
      'contract.funded',
      'contract.verification.completed',
      'contract.released',
    ]);
    expect(aliceCopies[1].data).toMatchObject({ passed: true, results: { http_status: 200 } });
    // Each party has its own copy, with its own id.
    expect(new Set([...aliceCopies, ...bobCopies].map((e) => e.id)).size).toBe(6);
  });

  it('VERIFICATION_FAILED → REFUNDED', async () => {
    const id = await contractAt([fund, failCheck]);
    const res = await move(id, refund);
    expect(res.body.status).toBe('REFUNDED');
    const last = (await feedOf(alice, aliceAgent)).filter((e) => e.data.contract_id === id).at(-1);
    expect(last.type).toBe('contract.refunded');
  });

  it('two concurrent funds: exactly one wins, one event per party', async () => {
    const id = await contractAt([]);
    const results = await Promise.all(Array.from({ length: 5 }, () => move(id, fund)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    const copies = (await feedOf(alice, aliceAgent)).filter((e) => e.data.contract_id === id);
    expect(copies.map((e) => e.type)).toEqual(['contract.funded']);
  });

  it('outsiders cannot move a contract (404), and bodies are validated', async () => {
    const id = await contractAt([fund]);
    const res = await move(id, release, eve);
    expect(res.status).toBe(404);
    expect((await move(id, { route: 'recordVerification', body: { passed: 'yes' } })).status).toBe(400);
    expect((await move(id, { route: 'recordVerification', body: { passed: true, extra: 1 } })).status).toBe(400);
    const big = await move(id, {
      route: 'recordVerification',
      body: { passed: true, results: { log: 'x'.repeat(17 * 1024) } },
    });
    expect(big.status).toBe(400);
    expect(detailPaths(big)).toEqual(['results']);
    expect((await move(id, { route: 'fundContract', body: { amount_cents: 1 } })).status).toBe(400);
    expect((await invoke('getContract', { caller: alice, params: { id } })).body.status).toBe('FUNDED');
  });
});

describe('who may move a contract (docs/events.md, "Who may move a contract")', () => {
  type Cell = {
    action: string;
    route: string;
    body?: unknown;
    from: string;
    path: Array<[string, 'buyer' | 'seller', unknown?]>;
    buyer: boolean;
    seller: boolean;
  };
  const verify = { passed: true };
  // Every (step, start status) of lib/contracts/transitions.ts, with the roles that may take it.
  const cells: Cell[] = [
    { action: 'fund', route: 'fundContract', from: 'CREATED', path: [], buyer: true, seller: false },
    {
      action: 'verification',
      route: 'recordVerification',
      body: verify,
      from: 'FUNDED',
      path: [['fundContract', 'buyer']],
      buyer: false,
      seller: true,
    },
    {
      action: 'release',
      route: 'releaseContract',
      from: 'FUNDED',
      path: [['fundContract', 'buyer']],
      buyer: true,
      seller: false,
    },
    {
      action: 'release',
      route: 'releaseContract',
      from: 'VERIFIED',
      path: [
        ['fundContract', 'buyer'],
        ['recordVerification', 'seller', verify],
      ],
      buyer: true,
      seller: false,
    },
    {
      action: 'refund',
      route: 'refundContract',
      from: 'FUNDED',
      path: [['fundContract', 'buyer']],
      buyer: false,
      seller: true,
    },
    {
      action: 'refund',
      route: 'refundContract',
      from: 'VERIFICATION_FAILED',
      path: [
        ['fundContract', 'buyer'],
        ['recordVerification', 'seller', { passed: false }],
      ],
      buyer: true,
      seller: true,
    },
  ];

  async function contractAt(path: Cell['path']): Promise<string> {
    const id = await createContract(alice, aliceAgent, templateId, {
      variables: { url: 'https://a.example' },
      seller_agent_id: bobAgent,
    });
    for (const [route, role, body] of path)
      expect(
        (await invoke(route, { caller: role === 'buyer' ? alice : bob, params: { id }, ...(body ? { body } : {}) }))
          .status,
      ).toBe(200);
    return id;
  }

  for (const cell of cells) {
    for (const [role, allowed] of [
      ['buyer', cell.buyer],
      ['seller', cell.seller],
    ] as const) {
      it(`${cell.action} from ${cell.from} by the ${role}: ${allowed ? '200' : '403, nothing changes'}`, async () => {
        const caller = role === 'buyer' ? alice : bob;
        const id = await contractAt(cell.path);
        const feedBefore = (await feedOf(alice, aliceAgent)).length;
        const res = await invoke(cell.route, { caller, params: { id }, ...(cell.body ? { body: cell.body } : {}) });
        if (allowed) {
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          expect((await feedOf(alice, aliceAgent)).length).toBe(feedBefore + 1);
        } else {
          expect(res.status).toBe(403);
          expect(res.body.error.code).toBe('forbidden');
          expect((await invoke('getContract', { caller: alice, params: { id } })).body.status).toBe(cell.from);
          expect((await feedOf(alice, aliceAgent)).length).toBe(feedBefore);
        }
        // A stranger neither sees nor moves it.
        expect(
          (await invoke(cell.route, { caller: eve, params: { id }, ...(cell.body ? { body: cell.body } : {}) })).status,
        ).toBe(404);
      });
    }
  }

  it('an author buying from its own template holds both roles and may take every step', async () => {
    const ownTemplate = await publishTemplate(alice, SIMPLE_SCHEMA);
    const sellerAgent = await createAgent(alice);
    const id = await createContract(alice, aliceAgent, ownTemplate, { seller_agent_id: sellerAgent });
    for (const [route, body] of [
      ['fundContract'],
      ['recordVerification', { passed: false }],
      ['refundContract'],
    ] as const) {
      expect((await invoke(route, { caller: alice, params: { id }, ...(body ? { body } : {}) })).status).toBe(200);
    }
  });
});

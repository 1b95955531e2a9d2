import { beforeAll, describe, expect, it } from 'vitest';
import { createAgent, publishTemplate, SIMPLE_SCHEMA } from '../events/support.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';

/**
 * Agent ids in a body went straight into DynamoDB keys: one longer than DynamoDB's key limit
 * (2 KiB partition) made a 500. A malformed id names nothing: the buyer's is a 404 like someone
 * else's agent; the seller's is the 400 of any agent that is not the template author's
 * (docs/api.md, no existence leaks).
 */
const long = (prefix: string) => `${prefix}_${'A'.repeat(3000)}`;

let alice: TestUser;
let agent: string;
let templateId: string;
beforeAll(async () => {
  alice = await createTestUser();
  agent = await createAgent(alice);
  templateId = await publishTemplate(alice, SIMPLE_SCHEMA);
});

const expect404 = (res: { status: number; body: any }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(404);
  expect(res.body.error.code).toBe('not_found');
};
const expectNotTheAuthors = (res: { status: number; body: any }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.details).toEqual([
    { path: 'seller_agent_id', message: "Expected an agent of the template's author." },
  ]);
};

describe('over-long agent ids in a body are a 4xx, never 500', () => {
  // Path ids are covered route by route in test/path-ids.test.ts; body ids are checked here.
  it('createContract with a 3 KB agent_id or seller_agent_id', async () => {
    const body = { template_id: templateId, variables: {}, amount_cents: 100 };
    expect404(await invoke('createContract', { caller: alice, body: { ...body, agent_id: long('agt') } }));
    expectNotTheAuthors(
      await invoke('createContract', {
        caller: alice,
        body: { ...body, agent_id: agent, seller_agent_id: long('agt') },
      }),
    );
  });

  it('createContract with a malformed seller_agent_id', async () => {
    const body = { template_id: templateId, variables: {}, amount_cents: 100, agent_id: agent };
    expectNotTheAuthors(
      await invoke('createContract', { caller: alice, body: { ...body, seller_agent_id: 'agt_../../x' } }),
    );
  });
});

describe('template ids in a contract body', () => {
  it('accept the UUID in any case, as the marketplace routes do, and store it lower-case', async () => {
    const res = await invoke('createContract', {
      caller: alice,
      body: { template_id: templateId.toUpperCase(), variables: {}, amount_cents: 100, agent_id: agent },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.template_id).toBe(templateId);
  });
});

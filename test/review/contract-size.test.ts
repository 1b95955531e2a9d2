import { beforeAll, describe, expect, it } from 'vitest';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { createAgent, publishTemplate } from '../events/support.ts';

/**
 * A contract stores its variables and its checks with every placeholder filled in. A long string
 * variable used by several placeholders made the item larger than DynamoDB's 400 KB: a 500. The
 * filled contract is now bounded, and a client who exceeds it gets a 400 on `variables`.
 */
let alice: TestUser;
let agent: string;
let templateId: string;
beforeAll(async () => {
  alice = await createTestUser();
  agent = await createAgent(alice);
  templateId = await publishTemplate(alice, {
    variables: [{ name: 's', type: 'string' }],
    checks: [{ id: 'c', type: 't', config: { a: '{{s}}', b: '{{s}}', c: 'prefix {{s}}' } }],
  });
});

const create = (s: string) =>
  invoke('createContract', { caller: alice, body: { template_id: templateId, variables: { s }, amount_cents: 100, agent_id: agent } });

describe('contract size', () => {
  it('a 200 KB variable copied into three placeholders is a 400, not a 500', async () => {
    const res = await create('x'.repeat(200_000));
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toEqual([{ path: 'variables', message: expect.stringMatching(/too large|at most/i) }]);
  });

  it('a contract of ordinary size is created', async () => {
    const res = await create('x'.repeat(10_000));
    expect(res.status).toBe(201);
    expect(res.body.checks[0].config.c).toBe(`prefix ${'x'.repeat(10_000)}`);
  });
});

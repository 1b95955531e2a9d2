import { beforeAll, describe, expect, it } from 'vitest';
import { createAgent, publishTemplate, SIMPLE_SCHEMA } from '../events/support.ts';
import { templateBody } from '../marketplace/helpers.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';

/**
 * A client that sends deeply nested JSON made a 500: DynamoDB refuses items nested beyond 32
 * levels, and recursive walks of the body ran out of stack. Every body is now limited in depth
 * by the HTTP stack, before any schema or store sees it: 400 validation_error.
 */
const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};
const nestedArrays = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

let alice: TestUser;
beforeAll(async () => {
  alice = await createTestUser();
});

const expect400 = (res: { status: number; body: any }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('validation_error');
  expect(res.body.error.details).toEqual([{ path: '', message: expect.stringMatching(/nest/i) }]);
};

describe('deeply nested JSON bodies', () => {
  it('a check config nested 40 levels deep is a 400, not a 500', async () => {
    const body = templateBody({ schema: { variables: [], checks: [{ id: 'c', type: 't', config: nested(40) }] } });
    expect400(await invoke('publishTemplate', { caller: alice, body }));
  });

  it('5000 nested arrays are a 400, not a stack overflow', async () => {
    const raw = JSON.stringify(
      templateBody({ schema: { variables: [], checks: [{ id: 'c', type: 't', config: { a: '__X__' } }] } }),
    ).replace('"__X__"', nestedArrays(5000));
    expect400(
      await invoke('publishTemplate', { caller: alice, body: raw, headers: { 'Content-Type': 'application/json' } }),
    );
  });

  it('verification results nested too deep are a 400', async () => {
    const agent = await createAgent(alice);
    const templateId = await publishTemplate(alice, SIMPLE_SCHEMA);
    const contract = await invoke('createContract', {
      caller: alice,
      body: { template_id: templateId, variables: {}, amount_cents: 100, agent_id: agent },
    });
    expect(contract.status).toBe(201);
    expect((await invoke('fundContract', { caller: alice, params: { id: contract.body.id } })).status).toBe(200);
    expect400(
      await invoke('recordVerification', {
        caller: alice,
        params: { id: contract.body.id },
        body: { passed: true, results: nested(40) },
      }),
    );
  });

  it('reasonable nesting is still accepted', async () => {
    const body = templateBody({ schema: { variables: [], checks: [{ id: 'c', type: 't', config: nested(12) }] } });
    const res = await invoke('publishTemplate', { caller: alice, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.schema.checks[0].config).toEqual(nested(12));
  });

  it('brackets inside strings do not count as nesting', async () => {
    const body = templateBody({ description: '['.repeat(500) + '{'.repeat(500) });
    expect((await invoke('publishTemplate', { caller: alice, body })).status).toBe(201);
  });
});

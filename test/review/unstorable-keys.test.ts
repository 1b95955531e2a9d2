import { beforeAll, describe, expect, it } from 'vitest';
import { createAgent, publishTemplate, SIMPLE_SCHEMA } from '../events/support.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { expectRefusedAt, publishWithRawConfig } from './support.ts';

/**
 * Issue 9, part 5. An empty object key anywhere in a stored document (`{"":1}`, `{"a":{"":1}}`) made
 * DynamoDB answer "Empty attribute name": a 500. A lone surrogate (`"\ud800"`) is valid JSON but
 * cannot be written as UTF-8: as a key it made a 500 too. Both are now a 400 naming the path, in a
 * template's check config, in verification results, and in any other body (the rule is in the
 * shared stack, before any schema). Strings with a lone surrogate are refused the same way.
 */
let alice: TestUser;
beforeAll(async () => {
  alice = await createTestUser();
});

const json = (body: string) => ({ body, headers: { 'Content-Type': 'application/json' } });

describe('keys DynamoDB cannot store, in a check config', () => {
  it.each([
    ['{"":1}', 'schema.checks.0.config.x.', /empty/i],
    ['{"a":{"":1}}', 'schema.checks.0.config.x.a.', /empty/i],
    ['[1,{"b":[{"":null}]}]', 'schema.checks.0.config.x.1.b.0.', /empty/i],
    ['{"\\ud800":1}', 'schema.checks.0.config.x.\ufffd', /surrogate/i],
    ['{"ok":{"a\\udfffb":1}}', 'schema.checks.0.config.x.ok.a\ufffdb', /surrogate/i],
    ['"\\ud800"', 'schema.checks.0.config.x', /surrogate/i],
    ['["fine","x\\udc00"]', 'schema.checks.0.config.x.1', /surrogate/i],
  ])('%s is a 400 at its path, not a 500', async (raw, path, why) => {
    const res = await invoke('publishTemplate', { caller: alice, ...publishWithRawConfig(raw) });
    expectRefusedAt(res, path, why);
  });

  it('an empty key in the config itself (not nested) is named too', async () => {
    const body = JSON.stringify({
      name: 'n',
      slug: 'empty-key-top',
      category: 'http',
      version: '1.0.0',
      schema: { variables: [], checks: [{ id: 'c', type: 't', config: { '': 1 } }] },
    });
    expectRefusedAt(
      await invoke('publishTemplate', { caller: alice, ...json(body) }),
      'schema.checks.0.config.',
      /empty/i,
    );
  });

  it('keys and strings that only look odd are stored and read back as sent', async () => {
    const raw = '{" ":1,"\\u0000":2,"😀":"\\ud83d\\ude00","\\\\ud800":"\\\\ud800","a.b":"y"}';
    const res = await invoke('publishTemplate', { caller: alice, ...publishWithRawConfig(raw) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const read = await invoke('getTemplate', { caller: alice, params: { id: res.body.id } });
    expect(read.body.schema.checks[0].config.x).toEqual({
      ' ': 1,
      '\u0000': 2,
      '😀': '😀',
      '\\ud800': '\\ud800',
      'a.b': 'y',
    });
  });
});

describe('keys DynamoDB cannot store, in verification results', () => {
  let contractId: string;
  beforeAll(async () => {
    const agent = await createAgent(alice);
    const templateId = await publishTemplate(alice, SIMPLE_SCHEMA);
    const contract = await invoke('createContract', {
      caller: alice,
      body: { template_id: templateId, variables: {}, amount_cents: 100, agent_id: agent },
    });
    contractId = contract.body.id;
    expect((await invoke('fundContract', { caller: alice, params: { id: contractId } })).status).toBe(200);
  });

  it.each([
    ['{"":1}', 'results.', /empty/i],
    ['{"a":{"":1}}', 'results.a.', /empty/i],
    ['{"\\ud800":1}', 'results.\ufffd', /surrogate/i],
    ['{"log":["ok","\\udbff"]}', 'results.log.1', /surrogate/i],
  ])('results %s are a 400 at their path and the contract does not move', async (raw, path, why) => {
    const res = await invoke('recordVerification', {
      caller: alice,
      params: { id: contractId },
      ...json(`{"passed":true,"results":${raw}}`),
    });
    expectRefusedAt(res, path, why);
    expect((await invoke('getContract', { caller: alice, params: { id: contractId } })).body.status).toBe('FUNDED');
  });

  it('results with ordinary keys are recorded', async () => {
    const res = await invoke('recordVerification', {
      caller: alice,
      params: { id: contractId },
      body: { passed: true, results: { ' ': 1, nested: { k: 'v' } } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});

describe('other bodies', () => {
  it('a contract variable with a lone surrogate is a 400 on the variable', async () => {
    const agent = await createAgent(alice);
    const templateId = await publishTemplate(alice, {
      variables: [{ name: 's', type: 'string' }],
      checks: [{ id: 'c', type: 't', config: { a: '{{s}}' } }],
    });
    const res = await invoke('createContract', {
      caller: alice,
      ...json(`{"template_id":"${templateId}","variables":{"s":"a\\ud800"},"amount_cents":100,"agent_id":"${agent}"}`),
    });
    expectRefusedAt(res, 'variables.s', /surrogate/i);
  });

  it('an agent name with a lone surrogate is a 400', async () => {
    expectRefusedAt(
      await invoke('createAgent', { caller: alice, ...json('{"name":"bot\\udc00"}') }),
      'name',
      /surrogate/i,
    );
  });
});

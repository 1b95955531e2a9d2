import { beforeAll, describe, expect, it } from 'vitest';
import { createAgent, publishTemplate, SIMPLE_SCHEMA } from '../events/support.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { expectRefusedAt, publishWithRawConfig } from './support.ts';

/**
 * DynamoDB's marshaller decides what a value is from `value.constructor.name`: a stored JSON object
 * with its own `constructor` key (a check config, verification results) made a 500 ("Unsupported
 * type passed"), and `{"constructor": {"name": "Set"}}` would be taken for a Set. `__proto__` keys
 * are dropped or turned into prototypes by ordinary assignment. Both keys are refused in any body,
 * at any depth: 400 validation_error naming the key's path.
 */
let alice: TestUser;
beforeAll(async () => {
  alice = await createTestUser();
});

const expectKeyRefused = (res: { status: number; body: any }, path: string) => expectRefusedAt(res, path, /reserved/i);

describe('constructor and __proto__ keys in bodies', () => {
  it('a check config with a constructor key is a 400, not a 500', async () => {
    const res = await invoke('publishTemplate', { caller: alice, ...publishWithRawConfig('{"constructor":"x"}') });
    expectKeyRefused(res, 'schema.checks.0.config.x.constructor');
  });

  it('a nested constructor that pretends to be a Set is a 400', async () => {
    const res = await invoke('publishTemplate', {
      caller: alice,
      ...publishWithRawConfig('[{"a":{"constructor":{"name":"Set"}}}]'),
    });
    expectKeyRefused(res, 'schema.checks.0.config.x.0.a.constructor');
  });

  it('a __proto__ key inside a config is a 400', async () => {
    const res = await invoke('publishTemplate', { caller: alice, ...publishWithRawConfig('{"__proto__":{"y":1}}') });
    expectKeyRefused(res, 'schema.checks.0.config.x.__proto__');
  });

  it('verification results with a constructor key are a 400, not a 500', async () => {
    const agent = await createAgent(alice);
    const templateId = await publishTemplate(alice, SIMPLE_SCHEMA);
    const contract = await invoke('createContract', {
      caller: alice,
      body: { template_id: templateId, variables: {}, amount_cents: 100, agent_id: agent },
    });
    expect((await invoke('fundContract', { caller: alice, params: { id: contract.body.id } })).status).toBe(200);
    const res = await invoke('recordVerification', {
      caller: alice,
      params: { id: contract.body.id },
      body: '{"passed":true,"results":{"constructor":1}}',
      headers: { 'Content-Type': 'application/json' },
    });
    expectKeyRefused(res, 'results.constructor');
    expect((await invoke('getContract', { caller: alice, params: { id: contract.body.id } })).body.status).toBe(
      'FUNDED',
    );
  });

  it('keys that merely resemble them are fine', async () => {
    const res = await invoke('publishTemplate', {
      caller: alice,
      ...publishWithRawConfig('{"constructors":1,"Constructor":2,"proto":3}'),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.schema.checks[0].config.x).toEqual({ constructors: 1, Constructor: 2, proto: 3 });
  });
});

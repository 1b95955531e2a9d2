import { beforeAll, describe, expect, it } from 'vitest';
import { createAgent, publishTemplate } from '../events/support.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { expectRefusedAt, publishWithRawConfig } from './support.ts';

/**
 * JSON numbers that DynamoDB cannot store exactly (beyond ±(2^53 − 1), where the SDK refuses them,
 * or closer to zero than 1e-130, which DynamoDB refuses) made a 500 wherever a body's value is
 * stored: a check config, a contract's number variable, verification results. 400 instead, with
 * the path of the number.
 */
let alice: TestUser;
beforeAll(async () => {
  alice = await createTestUser();
});

const expectNumberRefused = (res: { status: number; body: any }, path: string) => expectRefusedAt(res, path, /number/i);

describe('numbers DynamoDB cannot store', () => {
  it.each(['1e300', '-1e300', '9007199254740993', '1e-200'])(
    '%s in a check config is a 400, not a 500',
    async (raw) => {
      expectNumberRefused(
        await invoke('publishTemplate', { caller: alice, ...publishWithRawConfig(raw) }),
        'schema.checks.0.config.x',
      );
    },
  );

  it('1e300 as a contract number variable is a 400, not a 500', async () => {
    const agent = await createAgent(alice);
    const templateId = await publishTemplate(alice, { variables: [{ name: 'n', type: 'number' }], checks: [] });
    const res = await invoke('createContract', {
      caller: alice,
      body: `{"template_id":"${templateId}","variables":{"n":1e300},"amount_cents":100,"agent_id":"${agent}"}`,
      headers: { 'Content-Type': 'application/json' },
    });
    expectNumberRefused(res, 'variables.n');
  });

  it('ordinary numbers are kept exactly', async () => {
    const res = await invoke('publishTemplate', {
      caller: alice,
      ...publishWithRawConfig('[0, -0.5, 3.14159, 9007199254740991, -9007199254740991, 1e-130, 2.5e-7]'),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // biome-ignore-start lint/suspicious/noApproximativeNumericConstant: 3.14159 is a sample decimal not exact in binary (as in the raw config above), not π
    expect(res.body.schema.checks[0].config.x).toEqual([
      0, -0.5, 3.14159, 9007199254740991, -9007199254740991, 1e-130, 2.5e-7,
    ]);
    // biome-ignore-end lint/suspicious/noApproximativeNumericConstant: end of the sample above
  });
});

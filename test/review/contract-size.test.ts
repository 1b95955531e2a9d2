import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_CONTRACT_BYTES } from '../../lib/contracts/schemas.ts';
import { MAX_VARIABLE_VALUE_BYTES } from '../../lib/marketplace/templates/variables.ts';
import { createAgent, publishTemplate } from '../events/support.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';

/**
 * A contract stores its variables and its checks with every placeholder filled in. A long string
 * variable used by several placeholders made the item larger than DynamoDB's 400 KB: a 500. Then
 * (issue 9, part 3) the size was checked only after filling: a private template with `{{a}}` × 2,600
 * and a 200 KB value grew the process by 1.5 GB, and × 6,000 made a 500 RangeError. Now a value is
 * at most MAX_VARIABLE_VALUE_BYTES, and the filled size is reckoned before anything is filled.
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

const create = (s: string, template = templateId) =>
  invoke('createContract', {
    caller: alice,
    body: { template_id: template, variables: { s }, amount_cents: 100, agent_id: agent },
  });

const MB = 1024 * 1024;

describe('contract size', () => {
  it('a 200 KB variable is a 400 on that variable, not a 500', async () => {
    const res = await create('x'.repeat(200_000));
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
    expect(res.body.error.details).toEqual([
      { path: 'variables.s', message: `At most ${MAX_VARIABLE_VALUE_BYTES} bytes (UTF-8).` },
    ]);
  });

  it('a value within its cap copied into more placeholders than the contract holds is a 400 on variables', async () => {
    const res = await create('x'.repeat(MAX_VARIABLE_VALUE_BYTES / 2));
    expect(res.status).toBe(201);
    const tooMany = await publishTemplate(
      alice,
      {
        variables: [{ name: 's', type: 'string' }],
        checks: [{ id: 'c', type: 't', config: { a: '{{s}} '.repeat(9) } }],
      },
      'private',
    );
    const refused = await create('x'.repeat(MAX_VARIABLE_VALUE_BYTES), tooMany);
    expect(refused.status, JSON.stringify(refused.body).slice(0, 300)).toBe(400);
    expect(refused.body.error.details).toEqual([
      { path: 'variables', message: expect.stringMatching(new RegExp(`at most ${MAX_CONTRACT_BYTES}`)) },
    ]);
  });

  it('a contract of ordinary size is created', async () => {
    const res = await create('x'.repeat(10_000));
    expect(res.status).toBe(201);
    expect(res.body.checks[0].config.c).toBe(`prefix ${'x'.repeat(10_000)}`);
  });

  it('{{s}} × 6,000 with a value at the cap: three at once are refused and the process does not grow', async () => {
    // 6,000 copies of 16 KiB would be a 98 MB string, and JSON.stringify would copy it again.
    const bomb = await publishTemplate(
      alice,
      {
        variables: [{ name: 's', type: 'string' }],
        checks: [{ id: 'c', type: 't', config: { a: '{{s}}'.repeat(6000) } }],
      },
      'private',
    );
    const value = 'x'.repeat(MAX_VARIABLE_VALUE_BYTES);
    await create('warm-up', bomb); // loads the route's modules, so their memory is not counted below
    const before = process.memoryUsage();
    const answers = await Promise.all([create(value, bomb), create(value, bomb), create(value, bomb)]);
    const after = process.memoryUsage();
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([
        { path: 'variables', message: expect.stringMatching(/would be 98\d{6} bytes as JSON/) },
      ]);
    }
    // Building even one filled copy grows the heap and the resident set by about 100 MB or more.
    expect((after.heapUsed - before.heapUsed) / MB).toBeLessThan(24);
    expect((after.rss - before.rss) / MB).toBeLessThan(24);
  });
});

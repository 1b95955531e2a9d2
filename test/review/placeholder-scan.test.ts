import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_VARIABLE_VALUE_BYTES } from '../../lib/contracts/variables.ts';
import { placeholders } from '../../lib/marketplace/templates/template-schema.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { templateBody } from '../marketplace/helpers.ts';
import { expectRefusedAt } from './support.ts';

/**
 * Publishing scans every string of a check's config for `{{ name }}`. The pattern was
 * `\{\{\s*([^{}]*?)\s*\}\}`, whose three quantifiers can split a run of spaces in cubic many ways:
 * a config holding "{{" and 4,000 spaces took 36 s, 30,000 spaces (still under the 32 KiB schema
 * bound) hours, holding the CPU of the function, or of the whole local runtime. These publishes
 * must now simply complete (the test's own timeout is the bound; no timing is asserted).
 */
let alice: TestUser;
beforeAll(async () => {
  alice = await createTestUser();
});

const withConfig = (config: Record<string, unknown>, variables: unknown[] = []) => templateBody({ schema: { variables, checks: [{ id: 'c', type: 't', config }] } });

describe('the placeholder scan at publish', () => {
  it.each([
    ['"{{" and 30,000 spaces', `{{${' '.repeat(30_000)}`],
    ['"{{ " 10,000 times', '{{ '.repeat(10_000)],
    ['"{{" + 30,000 spaces + "}"', `{{${' '.repeat(30_000)}}`],
  ])('a config with %s is published', async (_, text) => {
    const res = await invoke('publishTemplate', { caller: alice, body: withConfig({ x: text }) });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
  });

  it('still finds every placeholder, its name trimmed, and refuses undeclared ones', async () => {
    expect(placeholders({ a: '{{ x }}', b: ['{{y}}{{\tz\n}}', '{{{w}}}'], c: '{{ }}' }, [])).toEqual([
      { path: ['a'], name: 'x' },
      { path: ['b', 0], name: 'y' },
      { path: ['b', 0], name: 'z' },
      { path: ['b', 1], name: 'w' },
      { path: ['c'], name: '' },
    ]);
    const res = await invoke('publishTemplate', { caller: alice, body: withConfig({ x: `{{${' '.repeat(5_000)}nope${' '.repeat(5_000)}}}` }) });
    expectRefusedAt(res, 'schema.checks.0.config.x', /\{\{nope\}\} is not a declared variable/);
  });

  it(`a default longer than a variable may be (${MAX_VARIABLE_VALUE_BYTES} bytes) is refused at publish`, async () => {
    const body = withConfig({}, [{ name: 's', type: 'string', default: 'x'.repeat(MAX_VARIABLE_VALUE_BYTES + 1) }]);
    expectRefusedAt(await invoke('publishTemplate', { caller: alice, body }), 'schema.variables.0.default', /at most 16384 bytes/i);
  });
});

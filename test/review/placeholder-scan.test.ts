import { beforeAll, describe, expect, it } from 'vitest';
import { placeholders } from '../../lib/marketplace/templates/template-schema.ts';
import { MAX_VARIABLE_VALUE_BYTES } from '../../lib/marketplace/templates/variables.ts';
import { templateBody } from '../marketplace/helpers.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
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

const withConfig = (config: Record<string, unknown>, variables: unknown[] = []) =>
  templateBody({ schema: { variables, checks: [{ id: 'c', type: 't', config }] } });

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
    const res = await invoke('publishTemplate', {
      caller: alice,
      body: withConfig({ x: `{{${' '.repeat(5_000)}nope${' '.repeat(5_000)}}}` }),
    });
    expectRefusedAt(res, 'schema.checks.0.config.x', /\{\{nope\}\} is not a declared variable/);
  });

  it(`a default longer than a variable may be (${MAX_VARIABLE_VALUE_BYTES} bytes) is refused at publish`, async () => {
    const body = withConfig({}, [{ name: 's', type: 'string', default: 'x'.repeat(MAX_VARIABLE_VALUE_BYTES + 1) }]);
    expectRefusedAt(
      await invoke('publishTemplate', { caller: alice, body }),
      'schema.variables.0.default',
      /at most 16384 bytes/i,
    );
  });

  it('{{u}} × 6,500 undeclared: one detail at its path, a small answer, and ten such publishes leave the process its size', async () => {
    // Each problem used to prefix `schema.` to every detail's path (the placeholders of one string
    // shared one path array, and zod prefixes in place): an 846 KB answer, RSS +367 MB per request.
    const body = withConfig({ a: '{{u}}'.repeat(6_500) });
    const first = await invoke('publishTemplate', { caller: alice, body }); // loads the route's modules before measuring
    expect(first.body.error.details).toEqual([
      { path: 'schema.checks.0.config.a', message: '{{u}} is not a declared variable (used 6500 times).' },
    ]);
    const before = process.memoryUsage();
    for (let i = 0; i < 10; i++) {
      const res = await invoke('publishTemplate', { caller: alice, body });
      expect(res.status).toBe(400);
      expect(Buffer.byteLength(JSON.stringify(res.body))).toBeLessThan(1024);
    }
    const after = process.memoryUsage();
    expect((after.rss - before.rss) / 2 ** 20).toBeLessThan(24);
    const version = await invoke('publishVersion', {
      caller: alice,
      params: { id: (await invoke('publishTemplate', { caller: alice, body: withConfig({}) })).body.id },
      body: { version: '1.1.0', schema: body.schema },
    });
    expectRefusedAt(version, 'schema.checks.0.config.a', /\{\{u\}\} is not a declared variable \(used 6500 times\)/);
  });

  it('3,000 distinct undeclared names: the first 19 at their paths and one detail counting the rest; long names and keys are cut in the answer', async () => {
    const names = Array.from({ length: 3_000 }, (_, i) => `{{v${i}}}`).join('');
    const res = await invoke('publishTemplate', { caller: alice, body: withConfig({ a: names }) });
    expect(res.status).toBe(400);
    const details = res.body.error.details as { path: string; message: string }[];
    expect(details).toHaveLength(20);
    expect(details.slice(0, 19).map((d) => d.message)).toEqual(
      Array.from({ length: 19 }, (_, i) => `{{v${i}}} is not a declared variable.`),
    );
    expect(details.at(-1)).toEqual({ path: '', message: '…and 2981 more problems.' });

    const longKey = 'k'.repeat(5_000);
    const long = await invoke('publishTemplate', {
      caller: alice,
      body: withConfig({ [longKey]: `{{${'n'.repeat(5_000)}}}` }),
    });
    const [detail] = long.body.error.details;
    expect(detail.path).toBe(`${`schema.checks.0.config.${longKey}`.slice(0, 200)}…`);
    expect(detail.message).toBe(`{{${'n'.repeat(64)}…}} is not a declared variable.`);
  });
});

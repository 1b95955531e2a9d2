import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../lib/routes.ts';
import { createTestUser, invoke, type TestUser } from './support/lambda.ts';

// Every route with an id in its path, driven by the route table: an id that cannot name anything
// is a 404 in the error format (never a 400 that confirms the shape, never a 5xx from the store).
const withIds = routes.filter((r) => r.path.includes('{') && !r.streaming);
const junk = [
  'x'.repeat(3000),
  '\ud800',
  'a\udc00b',
  `agt_${'A'.repeat(2000)}`,
  `ctr_${'B'.repeat(26)}x`,
  '..',
  ' ',
  '\u0000',
  '😀',
  'dlv_%2F..%2F',
];

let user: TestUser;
beforeAll(async () => {
  user = await createTestUser({ operator: true });
});

describe('ids in paths', () => {
  it.each(withIds.map((r) => [r.name] as const))('%s answers 404 for ids that cannot exist', async (name) => {
    const route = withIds.find((r) => r.name === name)!;
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    for (const id of junk) {
      const params = Object.fromEntries(names.map((n) => [n, id]));
      const res = await invoke(name, {
        caller: user,
        params,
        ...(route.method !== 'GET' && route.method !== 'DELETE' ? { body: {} } : {}),
      });
      expect(res.status, `${name} with ${JSON.stringify(id).slice(0, 20)}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

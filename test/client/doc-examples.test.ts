import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MarketplaceClient } from '../../client/index.ts';
import { useLocalApi } from '../support/local-api.ts';
import { indexSearch } from '../support/search-index.ts';
import { clientForNewUser } from './support/local-client.ts';
import { templateInput } from './support/template-input.ts';

/**
 * The `templates.list(…)` calls of the README's client example and of docs/client.md, taken from the
 * documents as written and run against the local API: a documented search with a sort must answer.
 */
const root = join(import.meta.dirname, '../..');
const listCalls = (file: string): string[] =>
  [...readFileSync(join(root, file), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].flatMap((block) => [...block[1]!.matchAll(/client\.templates\.list\((\{[^)]*\})\)/g)].map((m) => m[1]!));

const api = useLocalApi();
let client: MarketplaceClient;

beforeAll(async () => {
  ({ client } = await clientForNewUser(api.url));
  for (const [name, category] of [['HTTP uptime check', 'http'], ['Uptime of an http endpoint', 'http']] as const) await client.templates.publish(templateInput({ name, category }));
  await indexSearch();
});

describe('client examples in the documents', () => {
  for (const file of ['README.md', 'docs/client.md']) {
    it(`${file}: every templates.list call runs as written`, async () => {
      const calls = listCalls(file);
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) {
        const query = new Function(`return (${call});`)() as Parameters<MarketplaceClient['templates']['list']>[0];
        const page = await client.templates.list(query);
        expect(Number.isInteger(page.pagination.total), call).toBe(true);
        if (query?.search) expect(page.data.length, call).toBeGreaterThan(0);
      }
    });
  }
});

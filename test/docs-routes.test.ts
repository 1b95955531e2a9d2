import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { withRoutes } from '../scripts/routes-doc.ts';

it('README lists exactly the routes of the route table (run `npm run routes` to refresh)', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  expect(readme).toBe(withRoutes(readme));
});

it('README shows the receiver snippet that docs/webhooks.md holds and test/agents/docs-receiver.test.ts runs', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const docs = readFileSync(new URL('../docs/webhooks.md', import.meta.url), 'utf8');
  const snippet = /## 5\.[\s\S]*?```ts\n([\s\S]*?)```/.exec(docs)?.[1];
  expect(snippet).toContain('createHmac');
  expect(readme).toContain(snippet);
});

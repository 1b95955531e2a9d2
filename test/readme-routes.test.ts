import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { withRoutes } from '../scripts/routes-doc.ts';

it('README lists exactly the routes of the route table (run `npm run routes` to refresh)', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  expect(readme).toBe(withRoutes(readme));
});

import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ROUTES_DOC, withRoutes } from '../scripts/routes-doc.ts';

it('docs/operations.md lists exactly the routes of the route table (run `npm run routes` to refresh)', () => {
  const doc = readFileSync(ROUTES_DOC, 'utf8');
  expect(doc).toBe(withRoutes(doc));
});

/**
 * The handler of the test-only route that test/recipe/add-a-route.test.ts adds through CONTRIBUTING's
 * "Add a route" recipe (step 4: a thin handler over the shared HTTP stack). Never in lib/routes.ts.
 */

import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import * as z from '../../lib/zod.ts';

export const handler = httpRoute(
  {
    params: z.strictObject({ id: z.string().check(z.regex(/^[a-z]{1,10}$/)) }),
    // A query, so the generated client types change too (CONTRIBUTING's recipe table counts them).
    query: z.strictObject({ word: z.optional(z.string()) }),
  },
  async () => ok({ status: 'ok' }),
);

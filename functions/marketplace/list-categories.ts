import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { listCategories } from '../../lib/marketplace/templates/categories-list.ts';

/** GET /categories: every category with its count of public templates. */
export const handler = httpRoute({}, async () => ok(await listCategories()));

import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { featuredLists } from '../../lib/marketplace/featured-lists.ts';

/** GET /templates/featured: featured, trending, new and top_rated, up to 10 each. */
export const handler = httpRoute({}, async () => ok(await featuredLists()));

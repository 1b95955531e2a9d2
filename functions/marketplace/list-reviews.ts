import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { pageOnlyQuery, templateIdParams } from '../../lib/marketplace/request-schemas.ts';
import { listReviews } from '../../lib/marketplace/reviews/reviews.ts';

/** GET /templates/:id/reviews: newest first, paginated. */
export const handler = httpRoute(
  { params: templateIdParams, query: pageOnlyQuery },
  async ({ params, query, caller }) => ok(await listReviews(params.id, query, caller)),
);

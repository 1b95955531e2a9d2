import { httpRoute } from '../../lib/http/middleware.ts';
import { created } from '../../lib/http/responses.ts';
import { reviewBody, templateIdParams } from '../../lib/marketplace/request-schemas.ts';
import { createReview } from '../../lib/marketplace/reviews/reviews.ts';

/** POST /templates/:id/reviews: 201 review; 409 review_exists; 403 on your own template. */
export const handler = httpRoute(
  { params: templateIdParams, body: reviewBody },
  async ({ params, body, caller, sealAnswer }) =>
    created(await createReview(params.id, body, caller, sealAnswer(created))),
);

import { httpRoute } from '../../lib/http/middleware.ts';
import { noContent } from '../../lib/http/responses.ts';
import { templateIdParams } from '../../lib/marketplace/request-schemas.ts';
import { setFeatured } from '../../lib/marketplace/templates/feature.ts';

/** PUT /templates/:id/featured: operators only, 204, idempotent. */
export const handler = httpRoute({ params: templateIdParams }, async ({ params, caller, sealAnswer }) => {
  await setFeatured(params.id, true, caller, sealAnswer(noContent));
  return noContent();
});

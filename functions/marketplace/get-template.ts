import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { templateIdParams } from '../../lib/marketplace/request-schemas.ts';
import { templateDetails } from '../../lib/marketplace/template-details.ts';

/** GET /templates/:id (id or slug): template, versions, newest reviews. */
export const handler = httpRoute({ params: templateIdParams }, async ({ params, caller }) =>
  ok(await templateDetails(params.id, caller)),
);

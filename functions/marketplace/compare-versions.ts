import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { compareVersionsOf } from '../../lib/marketplace/lifecycle/compare.ts';
import { compareQuery, templateIdParams } from '../../lib/marketplace/request-schemas.ts';

/** GET /templates/:id/compare?from=&to=: the computed schema diff between two versions and the changelogs between. */
export const handler = httpRoute({ params: templateIdParams, query: compareQuery }, async ({ params, query, caller }) =>
  ok(await compareVersionsOf(params.id, query, caller)),
);

import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { templateIdParams } from '../../lib/marketplace/request-schemas.ts';
import { statsQuery } from '../../lib/marketplace/stats/schemas.ts';
import { templateStats } from '../../lib/marketplace/stats/stats.ts';

/** GET /templates/:id/stats?from&to&granularity=day: author only; counts per UTC day and version. */
export const handler = httpRoute({ params: templateIdParams, query: statsQuery }, async ({ params, query, caller }) =>
  ok(await templateStats(params.id, query, caller)),
);

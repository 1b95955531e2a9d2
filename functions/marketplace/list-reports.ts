import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { listOpenReports } from '../../lib/marketplace/moderation/reports.ts';
import { moderationPageQuery } from '../../lib/marketplace/moderation/schemas.ts';

/** GET /reports: operators only; the open reports, newest first. */
export const handler = httpRoute({ query: moderationPageQuery }, async ({ query, caller }) =>
  ok(await listOpenReports(caller, query)),
);

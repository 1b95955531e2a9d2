import { httpRoute } from '../../lib/http/middleware.ts';
import { created } from '../../lib/http/responses.ts';
import { createReport } from '../../lib/marketplace/moderation/reports.ts';
import { reportBody } from '../../lib/marketplace/moderation/schemas.ts';

/** POST /reports: any key holder reports a template or a review; 409 report_exists, 429 past the limit. */
export const handler = httpRoute({ body: reportBody }, async ({ body, caller, sealAnswer }) =>
  created(await createReport(caller, body, sealAnswer(created))),
);

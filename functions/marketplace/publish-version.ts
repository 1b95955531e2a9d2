import { httpRoute } from '../../lib/http/middleware.ts';
import { created } from '../../lib/http/responses.ts';
import { publishVersionAndTell } from '../../lib/marketplace/lifecycle/publish-notice.ts';
import { templateIdParams, versionBody } from '../../lib/marketplace/request-schemas.ts';

/** POST /templates/:id/versions: author only; a greater version with its schema (its installers hear of it). */
export const handler = httpRoute(
  { params: templateIdParams, body: versionBody },
  async ({ params, body, caller, sealAnswer }) =>
    created(await publishVersionAndTell(params.id, body, caller, sealAnswer(created))),
);

import { httpRoute } from '../../lib/http/middleware.ts';
import { created } from '../../lib/http/responses.ts';
import { templateIdParams, versionBody } from '../../lib/marketplace/request-schemas.ts';
import { publishVersion } from '../../lib/marketplace/templates/publish-version.ts';

/** POST /templates/:id/versions: author only; a greater version with its schema. */
export const handler = httpRoute(
  { params: templateIdParams, body: versionBody },
  async ({ params, body, caller, sealAnswer }) =>
    created(await publishVersion(params.id, body, caller, sealAnswer(created))),
);

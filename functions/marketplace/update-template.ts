import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { templateIdParams, updateBody } from '../../lib/marketplace/request-schemas.ts';
import { updateTemplate } from '../../lib/marketplace/templates/update.ts';

/** PATCH /templates/:id: author only; name, description, category, visibility. */
export const handler = httpRoute(
  { params: templateIdParams, body: updateBody },
  async ({ params, body, caller, sealAnswer }) => ok(await updateTemplate(params.id, body, caller, sealAnswer(ok))),
);

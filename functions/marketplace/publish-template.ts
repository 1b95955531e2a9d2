import { httpRoute } from '../../lib/http/stack.ts';
import { created } from '../../lib/http/responses.ts';
import { publishTemplate } from '../../lib/marketplace/templates/publish.ts';
import { publishBody } from '../../lib/marketplace/request-schemas.ts';
import { BASE_PATHS } from '../../lib/core/settings.ts';

/** POST /templates: 201 with the full template and its Location. */
export const handler = httpRoute({ body: publishBody }, async ({ body, caller }) => {
  const template = await publishTemplate(body, caller);
  return created(template, `${BASE_PATHS.marketplace}/templates/${template.id}`);
});

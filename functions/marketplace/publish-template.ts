import { httpRoute } from '../../lib/http/stack.ts';
import { created } from '../../lib/http/responses.ts';
import { publishTemplate } from '../../lib/marketplace/templates/publish.ts';
import { publishBody } from '../../lib/marketplace/request-schemas.ts';
import { MARKETPLACE_BASE } from '../../lib/routes.ts';

/** POST /templates: 201 with the full template and its Location. */
export const handler = httpRoute({ body: publishBody }, async ({ body, caller }) => {
  const template = await publishTemplate(body, caller);
  return created(template, `${MARKETPLACE_BASE}/templates/${template.id}`);
});

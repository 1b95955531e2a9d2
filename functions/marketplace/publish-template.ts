import { BASE_PATHS } from '../../lib/core/settings.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { created } from '../../lib/http/responses.ts';
import { publishBody } from '../../lib/marketplace/request-schemas.ts';
import { publishTemplate } from '../../lib/marketplace/templates/publish.ts';
import type { toTemplate } from '../../lib/marketplace/templates/template-item.ts';

const answer = (template: ReturnType<typeof toTemplate>) =>
  created(template, `${BASE_PATHS.marketplace}/templates/${template.id}`);

/** POST /templates: 201 with the full template and its Location. */
export const handler = httpRoute({ body: publishBody }, async ({ body, caller, sealAnswer }) =>
  answer(await publishTemplate(body, caller, sealAnswer(answer))),
);

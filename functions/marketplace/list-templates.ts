import { ok } from '../../lib/http/responses.ts';
import { httpRoute } from '../../lib/http/stack.ts';
import { listTemplatesQuery } from '../../lib/marketplace/request-schemas.ts';
import { listTemplates } from '../../lib/marketplace/templates/list-templates.ts';

/** GET /templates: public templates by sort, category or search; offset or cursor paging. */
export const handler = httpRoute({ query: listTemplatesQuery }, async ({ query }) => ok(await listTemplates(query)));

import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { listTemplatesQuery } from '../../lib/marketplace/request-schemas.ts';
import { listTemplates } from '../../lib/marketplace/template-list.ts';

/** GET /templates: public templates by sort, category or search; offset or cursor paging. */
export const handler = httpRoute({ query: listTemplatesQuery }, async ({ query }) => ok(await listTemplates(query)));

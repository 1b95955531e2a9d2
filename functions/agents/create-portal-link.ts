import { agentIdParams } from '../../lib/agents/schemas.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { created } from '../../lib/http/responses.ts';
import { createPortalLink } from '../../lib/portal/links.ts';
import { portalPageUrl } from '../../lib/portal/page-url.ts';
import { createPortalLinkBody } from '../../lib/portal/schemas.ts';

export const handler = httpRoute(
  { params: agentIdParams, body: createPortalLinkBody },
  async ({ caller, params, body, sealAnswer }) =>
    created(await createPortalLink(caller, params.id, body, portalPageUrl(), Date.now(), sealAnswer(created))),
);

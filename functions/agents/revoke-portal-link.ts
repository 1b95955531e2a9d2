import { httpRoute } from '../../lib/http/middleware.ts';
import { noContent } from '../../lib/http/responses.ts';
import { revokePortalLink } from '../../lib/portal/links.ts';
import { portalLinkParams } from '../../lib/portal/schemas.ts';

export const handler = httpRoute({ params: portalLinkParams }, async ({ caller, params, sealAnswer }) => {
  await revokePortalLink(caller, params.id, params.link_id, sealAnswer(noContent));
  return noContent();
});

import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { upgradeInstall } from '../../lib/marketplace/installs/upgrade.ts';
import { installedTemplateParams, upgradeBody } from '../../lib/marketplace/request-schemas.ts';

/** POST /installed/:template/upgrade: to a named version or the newest the policy allows; answers with the diff. */
export const handler = httpRoute(
  { params: installedTemplateParams, body: upgradeBody },
  async ({ params, body, caller, sealAnswer }) =>
    ok(await upgradeInstall(params.template, body, caller, sealAnswer(ok))),
);

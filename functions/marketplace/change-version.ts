import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { versionChangeBody, versionParams } from '../../lib/marketplace/lifecycle/schemas.ts';
import { changeVersion } from '../../lib/marketplace/lifecycle/version-change.ts';

/** PATCH /templates/:id/versions/:version: author only; deprecate or yank a version (or take either back). */
export const handler = httpRoute(
  { params: versionParams, body: versionChangeBody },
  async ({ params, body, caller, sealAnswer }) =>
    ok(await changeVersion(params.id, params.version, body, caller, sealAnswer(ok))),
);

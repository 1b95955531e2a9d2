import { httpRoute } from '../../lib/http/middleware.ts';
import { created, ok } from '../../lib/http/responses.ts';
import { type Installed, installTemplate } from '../../lib/marketplace/installs/install.ts';
import { installBody, templateIdParams } from '../../lib/marketplace/request-schemas.ts';

const answer = ({ created: first, installation }: Installed) => (first ? created(installation) : ok(installation));

/** POST /templates/:id/install: 201 on the workspace's first install, 200 (nothing counted) after. */
export const handler = httpRoute(
  { params: templateIdParams, body: installBody },
  async ({ params, body, caller, sealAnswer }) =>
    answer(await installTemplate(params.id, caller, Date.now(), sealAnswer(answer), body)),
);

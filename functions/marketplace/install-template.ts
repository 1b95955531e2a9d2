import { httpRoute } from '../../lib/http/middleware.ts';
import { created, ok } from '../../lib/http/responses.ts';
import { installTemplate } from '../../lib/marketplace/installs/install.ts';
import { templateIdParams } from '../../lib/marketplace/request-schemas.ts';

/** POST /templates/:id/install: 201 on the workspace's first install, 200 (nothing counted) after. */
export const handler = httpRoute({ params: templateIdParams }, async ({ params, caller }) => {
  const { created: first, installation } = await installTemplate(params.id, caller);
  return first ? created(installation) : ok(installation);
});

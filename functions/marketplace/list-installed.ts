import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { listInstalled } from '../../lib/marketplace/installs/installed.ts';
import { installedQuery } from '../../lib/marketplace/request-schemas.ts';

/** GET /installed: the caller's workspace's templates, most recently installed first. */
export const handler = httpRoute({ query: installedQuery }, async ({ query, caller }) =>
  ok(await listInstalled(caller, query)),
);

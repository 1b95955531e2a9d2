import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { listActions } from '../../lib/marketplace/moderation/audit.ts';
import { moderationPageQuery } from '../../lib/marketplace/moderation/schemas.ts';

/** GET /moderation/actions: operators only; the audit trail, newest first. */
export const handler = httpRoute({ query: moderationPageQuery }, async ({ query, caller }) =>
  ok(await listActions(caller, query)),
);

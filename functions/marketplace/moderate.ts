import { httpRoute } from '../../lib/http/middleware.ts';
import { created } from '../../lib/http/responses.ts';
import { moderate } from '../../lib/marketplace/moderation/moderate.ts';
import { moderationBody } from '../../lib/marketplace/moderation/schemas.ts';

/** POST /moderation/actions: operators only; hide, restore, dismiss, verify_author, unverify_author. 201 audit entry. */
export const handler = httpRoute({ body: moderationBody }, async ({ body, caller, sealAnswer, amendAnswer }) =>
  created(await moderate(caller, body, sealAnswer(created), amendAnswer(created))),
);

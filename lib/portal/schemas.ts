/** Request shapes of the portal link routes (docs/api.md, "Portal links"). Strict: unknown fields are a 400. */
import { ID_PATTERN } from '../core/ids.ts';
import * as z from '../zod.ts';
import { PORTAL_LINK_MAX_SECONDS, PORTAL_LINK_MIN_SECONDS } from './token.ts';

/** Optional: no body makes a link that lasts the longest a link may (an hour). */
export const createPortalLinkBody = z.optional(
  z.strictObject({
    expires_in_seconds: z.optional(
      z
        .int('Expected whole seconds.')
        .check(
          z.minimum(PORTAL_LINK_MIN_SECONDS, `At least ${PORTAL_LINK_MIN_SECONDS}.`),
          z.maximum(PORTAL_LINK_MAX_SECONDS, `At most ${PORTAL_LINK_MAX_SECONDS} (an hour).`),
        ),
    ),
  }),
);
export type CreatePortalLinkInput = z.output<typeof createPortalLinkBody>;

export const portalLinkParams = z.strictObject({
  id: z.string().check(z.regex(ID_PATTERN.agt)),
  link_id: z.string().check(z.regex(/^pl_[0-9a-f]{16}$/)),
});

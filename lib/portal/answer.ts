/**
 * The portal link answer (POST …/portal-links), declared once: lib/http/openapi/schemas.ts names
 * it in the OpenAPI document, and the service's type is inferred from it. Scripts and tests only,
 * never a function bundle (links.ts imports the type alone).
 */
import { z } from 'zod';
import { ID_PATTERN } from '../core/ids.ts';

export const portalLinkAnswer = z.strictObject({
  id: z.string().regex(/^pl_[0-9a-f]{16}$/),
  agent_id: z.string().regex(ID_PATTERN.agt),
  url: z.url().describe('The portal page with `#agent=…&token=…`: open it, or embed it in an iframe.'),
  token: z
    .string()
    .regex(/^pt_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/)
    .describe('Shown once; only its SHA-256 is stored.'),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
});

/** What POST …/portal-links answers (lib/portal/links.ts imports only this type). */
export type PortalLinkAnswer = z.infer<typeof portalLinkAnswer>;

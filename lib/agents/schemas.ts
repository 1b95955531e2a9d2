/** Request shapes of the agent and webhook routes (docs/api.md). Strict: unknown fields are a 400. */

import { ID_PATTERN } from '../core/ids.ts';
import { MAX_OVERLAP_SECONDS } from '../webhooks/rotation.ts';
import * as z from '../zod.ts';

export const agentIdParams = z.strictObject({ id: z.string().check(z.regex(ID_PATTERN.agt)) });

export const createAgentBody = z.strictObject({
  name: z
    .string()
    .check(z.trim(), z.minLength(1, 'Give the agent a name.'), z.maxLength(100, 'At most 100 characters.')),
});

export const listAgentsQuery = z.strictObject({
  limit: z._default(z.queryInteger(1, 100), 100),
  cursor: z.optional(z.string().check(z.minLength(1))),
});

/** Optional: no body rotates with the default overlap (lib/webhooks/rotation.ts). */
export const rotateSecretBody = z.optional(
  z.strictObject({
    expire_previous_in_seconds: z.optional(
      z
        .int('Expected whole seconds.')
        .check(
          z.minimum(0, 'At least 0 (the previous secret stops at once).'),
          z.maximum(MAX_OVERLAP_SECONDS, `At most ${MAX_OVERLAP_SECONDS} (24 hours).`),
        ),
    ),
  }),
);
export type RotateSecretInput = z.output<typeof rotateSecretBody>;

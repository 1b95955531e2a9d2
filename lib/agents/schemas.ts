/** Request shapes of the agent and webhook routes (docs/api.md). Strict: unknown fields are a 400. */

import { EVENT_TYPES } from '../core/event-types.ts';
import { ID_PATTERN } from '../core/ids.ts';
import { filterSchema } from '../filters/grammar.ts';
import { checkWebhookUrl, developmentMode } from '../net/url-policy.ts';
import { customHeadersSchema } from '../webhooks/custom-headers.ts';
import { MAX_OVERLAP_SECONDS } from '../webhooks/rotation.ts';
import * as z from '../zod.ts';
import { schemaVersionPins } from './schema-pins.ts';

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

/**
 * The URL is checked as written (no DNS, docs/api.md): the policy lives in lib/net/url-policy.ts and
 * is read at parse time, so DEVELOPMENT_MODE is whatever the runtime says at that moment.
 */
export const configureWebhookBody = z.strictObject({
  webhook_url: z.string().check(
    z.superRefine((url, ctx) => {
      const check = checkWebhookUrl(url, { developmentMode: developmentMode() });
      if (!check.ok) ctx.addIssue({ code: 'custom', message: check.reason });
    }),
  ),
  events: z.array(z.enum(EVENT_TYPES)).check(
    z.minLength(1, 'Subscribe to at least one event kind.'),
    z.refine((events) => new Set(events).size === events.length, 'List each event kind once.'),
  ),
  /** Absent: the pins stay as they are; `{}` removes them. */
  schema_versions: z.optional(schemaVersionPins),
  /** Absent: the filter stays as it is; null removes it. */
  filter: z.optional(z.nullable(filterSchema)),
  /** Absent: the headers stay as they are; `[]` removes them. */
  headers: z.optional(customHeadersSchema),
});
export type ConfigureWebhookInput = z.output<typeof configureWebhookBody>;

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

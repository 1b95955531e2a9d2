/**
 * PATCH …/webhook's body (docs/api.md): apart from the agent routes' other shapes (schemas.ts) so
 * only its own function bundles the URL policy and the custom headers' rules.
 */
import { EVENT_TYPES } from '../core/event-types.ts';
import { checkWebhookUrl, developmentMode } from '../net/url-policy.ts';
import { customHeadersSchema } from '../webhooks/custom-headers-schema.ts';
import * as z from '../zod.ts';
import { rateLimitField } from './rate-limit.ts';
import { schemaVersionPins } from './schema-pins.ts';

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
  /** Absent: the headers stay as they are; `[]` removes them. */
  headers: z.optional(customHeadersSchema),
  /** Absent: the limit stays as it is; null removes it. */
  rate_limit: rateLimitField,
});
export type ConfigureWebhookInput = z.output<typeof configureWebhookBody>;

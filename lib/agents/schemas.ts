import { z } from 'zod';
import { EVENT_TYPES } from '../events/types.ts';
import { checkWebhookUrl, developmentMode } from '../net/url-policy.ts';
import { ID_PATTERN } from '../ids.ts';

/** Request shapes of the agent and webhook routes (docs/api.md). Strict: unknown fields are a 400. */
export const agentIdParams = z.strictObject({ id: z.string().regex(ID_PATTERN.agt) });

export const createAgentBody = z.strictObject({
  name: z.string().trim().min(1, 'Give the agent a name.').max(100, 'At most 100 characters.'),
});

export const listAgentsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(100),
  cursor: z.string().min(1).optional(),
});

/**
 * The URL is checked as written (no DNS, docs/api.md): the policy lives in lib/net/url-policy.ts and
 * is read at parse time, so DEVELOPMENT_MODE is whatever the runtime says at that moment.
 */
export const configureWebhookBody = z.strictObject({
  webhook_url: z.string().superRefine((url, ctx) => {
    const check = checkWebhookUrl(url, { developmentMode: developmentMode() });
    if (!check.ok) ctx.addIssue({ code: 'custom', message: check.reason });
  }),
  events: z
    .array(z.enum(EVENT_TYPES))
    .min(1, 'Subscribe to at least one event kind.')
    .refine((events) => new Set(events).size === events.length, 'List each event kind once.'),
});
export type ConfigureWebhookInput = z.output<typeof configureWebhookBody>;

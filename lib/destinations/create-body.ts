/** POST …/destinations' body (docs/api.md): apart from schemas.ts so only its function bundles the filter grammar. */
import { rateLimitField } from '../agents/rate-limit.ts';
import { schemaVersionPins } from '../agents/schema-pins.ts';
import { EVENT_TYPES } from '../core/event-types.ts';
import { filterSchema } from '../filters/grammar.ts';
import * as z from '../zod.ts';

/** The ARN's own rules (kind, region, account) are checked by the service (arn.ts), which names the reason. */
export const createDestinationBody = z.strictObject({
  arn: z.string().check(z.minLength(1, 'Give the ARN of an SQS queue or an EventBridge event bus.'), z.maxLength(400)),
  events: z.array(z.enum(EVENT_TYPES)).check(
    z.minLength(1, 'Subscribe to at least one event kind.'),
    z.refine((events) => new Set(events).size === events.length, 'List each event kind once.'),
  ),
  schema_versions: z.optional(schemaVersionPins),
  rate_limit: rateLimitField,
  /** Its content filter (docs/webhooks.md, "Filters"); absent or null: every subscribed event. */
  filter: z.optional(z.nullable(filterSchema)),
});
export type CreateDestinationInput = z.output<typeof createDestinationBody>;

/** Request shapes of the destination routes (docs/api.md). Strict: unknown fields are a 400. */

import { schemaVersionPins } from '../agents/schema-pins.ts';
import { EVENT_TYPES } from '../core/event-types.ts';
import { ID_PATTERN } from '../core/ids.ts';
import { filterSchema } from '../filters/grammar.ts';
import * as z from '../zod.ts';

export const destinationParams = z.strictObject({
  id: z.string().check(z.regex(ID_PATTERN.agt)),
  destination_id: z.string().check(z.regex(ID_PATTERN.dst)),
});

/** The ARN's own rules (kind, region, account) are checked by the service (arn.ts), which names the reason. */
export const createDestinationBody = z.strictObject({
  arn: z.string().check(z.minLength(1, 'Give the ARN of an SQS queue or an EventBridge event bus.'), z.maxLength(400)),
  events: z.array(z.enum(EVENT_TYPES)).check(
    z.minLength(1, 'Subscribe to at least one event kind.'),
    z.refine((events) => new Set(events).size === events.length, 'List each event kind once.'),
  ),
  schema_versions: z.optional(schemaVersionPins),
  /** Its content filter (docs/webhooks.md, "Filters"); absent or null: every subscribed event. */
  filter: z.optional(z.nullable(filterSchema)),
});
export type CreateDestinationInput = z.output<typeof createDestinationBody>;

export const verifyDestinationBody = z.strictObject({
  code: z.string().check(z.minLength(1, 'Give the code of the verification message.'), z.maxLength(64)),
});

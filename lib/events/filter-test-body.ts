/** POST …/filters/test's body: apart from schemas.ts so only its function bundles the filter grammar. */
import { allEventTypes } from '../core/event-types.ts';
import { ID_PATTERN } from '../core/ids.ts';
import { filterSchema } from '../filters/grammar.ts';
import * as z from '../zod.ts';

/**
 * POST …/filters/test: a filter (or the subscription's own) against an event given here, one of the
 * agent's by id, or its newest (docs/webhooks.md, "Filters").
 */
export const filterTestBody = z
  .strictObject({
    /** Absent: the subscription's current filter. */
    filter: z.optional(filterSchema),
    /** Judged as this destination would (its pins and kinds); absent: the webhook. */
    destination_id: z.optional(z.string().check(z.regex(ID_PATTERN.dst))),
    event_id: z.optional(z.string().check(z.regex(ID_PATTERN.evt))),
    event: z.optional(
      z.strictObject({
        type: z.enum(allEventTypes()),
        data: z.record(z.string(), z.unknown()),
        /** Absent: the kind's current version. */
        schema_version: z.optional(z.int().check(z.minimum(1))),
      }),
    ),
  })
  .check(
    z.refine((b) => b.event === undefined || b.event_id === undefined, {
      message: 'Give `event` or `event_id`, not both.',
      path: ['event_id'],
    }),
  );
export type FilterTestInput = z.output<typeof filterTestBody>;

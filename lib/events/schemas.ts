/** Request shapes of the agent's event and delivery routes (the lists' queries are in feed/list-query.ts and delivery/list-query.ts) (docs/api.md "Agents, webhooks and events"). Strict: unknown parameters are a 400. */

import { allEventTypes } from '../core/event-types.ts';
import { ID_PATTERN } from '../core/ids.ts';
import { filterSchema } from '../filters/grammar.ts';
import * as z from '../zod.ts';

export const agentParams = z.strictObject({ id: z.string().check(z.regex(ID_PATTERN.agt)) });

/** POST …/retry: no body, `{}`, or `{ "force": true }` to send a delivery that already succeeded again. */
export const retryBody = z.optional(z.strictObject({ force: z.optional(z.boolean()) }));

export const deliveryParams = z.strictObject({
  id: z.string().check(z.regex(ID_PATTERN.agt)),
  delivery_id: z.string().check(z.regex(ID_PATTERN.dlv)),
});

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

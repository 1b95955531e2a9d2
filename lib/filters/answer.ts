/**
 * The filter and custom header fields of the subscription answers (webhooks, destinations) and the
 * filter test's answer, declared once for lib/http/openapi/schemas.ts (which names `Filter` as a
 * component, so the recursion is one `$ref`); imported as types only elsewhere.
 */
import { z } from 'zod';
import { filterSchema } from './grammar.ts';

export const filterAnswer = z
  .nullable(filterSchema)
  .describe('The content filter (docs/webhooks.md, "Filters"); null: every subscribed event.');

export const customHeaderAnswer = z.strictObject({
  name: z.string(),
  value: z.string().nullable().describe('Null for a secret header: stored sealed and never shown again.'),
  secret: z.boolean(),
});

export const filterTestAnswer = z.strictObject({
  matched: z.boolean(),
  event_id: z
    .string()
    .nullable()
    .describe(
      "The agent's event the filter was tested against (by id, or its newest); null for an event given in the request.",
    ),
  failed: z
    .strictObject({
      at: z.string().describe('Where the clause stands in the filter, dotted from its root (`` for the root).'),
      clause: filterSchema,
      reason: z.string(),
    })
    .nullable()
    .describe('The clause that decided a non-match; null when it matched.'),
  never_matches: z
    .boolean()
    .describe('True when no event of the subscribed kinds can pass the filter (allowed, but flagged).'),
});
export type FilterTestAnswer = z.infer<typeof filterTestAnswer>;

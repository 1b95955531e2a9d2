/**
 * The content filter of a subscription (docs/webhooks.md, "Filters"): JSON over the event's
 * envelope and `data`, one node per clause, told apart by `op`:
 *
 * - `{"op": "and" | "or", "clauses": [F, …]}`, `{"op": "not", "clause": F}`;
 * - `{"op": "eq" | "ne", "path", "value": scalar}`, `{"op": "in", "path", "values": [scalar, …]}`;
 * - `{"op": "gt" | "gte" | "lt" | "lte", "path", "value": number | ISO 8601 date-time}`;
 * - `{"op": "exists", "path"}`.
 *
 * A path is dotted from the event object: an envelope field (`type`, `id`, …) or `data.<field>…`
 * (a whole number steps into an array). Bounded (FILTER_LIMITS) in depth, clauses, `in` values,
 * bytes and cost, so one filter's evaluation stays a few microseconds; each refusal names the
 * offending path.
 */
import * as z from '../zod.ts';
import { ENVELOPE_FIELDS, FILTER_LIMITS, type Filter, filterCost, ISO_DATE_TIME, nodesOf } from './filter.ts';

const SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;

const path = z.string().check(
  z.maxLength(FILTER_LIMITS.maxPathLength, `At most ${FILTER_LIMITS.maxPathLength} characters.`),
  z.superRefine((p, ctx) => {
    const segments = p.split('.');
    const [head] = segments;
    if (!(ENVELOPE_FIELDS as readonly string[]).includes(head!))
      ctx.addIssue({
        code: 'custom',
        message: `A path starts with an envelope field (${ENVELOPE_FIELDS.join(', ')}), then \`data.<field>\`.`,
      });
    else if (head !== 'data' && segments.length > 1)
      ctx.addIssue({ code: 'custom', message: `Only \`data\` has fields below it, not \`${head}\`.` });
    else if (segments.length > FILTER_LIMITS.maxPathSegments)
      ctx.addIssue({ code: 'custom', message: `At most ${FILTER_LIMITS.maxPathSegments} segments.` });
    else if (!segments.every((s) => SEGMENT.test(s)))
      ctx.addIssue({
        code: 'custom',
        message: 'Segments are 1–64 letters, digits, `_` or `-`, joined by dots.',
      });
  }),
);

const text = z
  .string()
  .check(z.maxLength(FILTER_LIMITS.maxStringLength, `At most ${FILTER_LIMITS.maxStringLength} characters.`));
const finite = z.number().check(z.refine(Number.isFinite, 'A finite number.'));
const scalar = z.union([text, finite, z.boolean(), z.null()], {
  error: 'Expected a string, a number, true, false or null.',
});
const ordered = z.union(
  [finite, z.string().check(z.regex(ISO_DATE_TIME, 'Expected a number or an ISO 8601 date-time with a zone.'))],
  { error: 'Expected a number or an ISO 8601 date-time with a zone.' },
);

// Recursive through getters; the type is declared above, so the schema is annotated with it.
export const combinator = z.strictObject({
  op: z.enum(['and', 'or']),
  get clauses(): z.ZodMiniArray<z.ZodMiniType<Filter>> {
    return z.array(filterNode).check(z.minLength(1, 'At least one clause.'));
  },
});
export const negation = z.strictObject({
  op: z.literal('not'),
  get clause(): z.ZodMiniType<Filter> {
    return filterNode;
  },
});

/** The grammar's node, unbounded (its recursion); `filterSchema` is what routes parse with. */
export const filterNode: z.ZodMiniType<Filter> = z.discriminatedUnion('op', [
  combinator,
  negation,
  z.strictObject({ op: z.enum(['eq', 'ne']), path, value: scalar }),
  z.strictObject({
    op: z.literal('in'),
    path,
    values: z
      .array(scalar)
      .check(
        z.minLength(1, 'At least one value.'),
        z.maxLength(FILTER_LIMITS.maxInValues, `At most ${FILTER_LIMITS.maxInValues} values.`),
      ),
  }),
  z.strictObject({ op: z.enum(['gt', 'gte', 'lt', 'lte']), path, value: ordered }),
  z.strictObject({ op: z.literal('exists'), path }),
]) as z.ZodMiniType<Filter>;

/** The bounds the structure alone cannot say, each refusal at the node that passes it. */
function checkBounds(filter: Filter, ctx: z.core.$RefinementCtx<Filter>): void {
  let clauses = 0;
  for (const [, where, depth] of nodesOf(filter)) {
    clauses += 1;
    if (depth > FILTER_LIMITS.maxDepth) {
      ctx.addIssue({
        code: 'custom',
        path: where,
        message: `Nested ${depth} deep: at most ${FILTER_LIMITS.maxDepth} levels of and/or/not.`,
      });
      return;
    }
    if (clauses > FILTER_LIMITS.maxClauses) {
      ctx.addIssue({
        code: 'custom',
        path: where,
        message: `At most ${FILTER_LIMITS.maxClauses} clauses in a filter.`,
      });
      return;
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(filter));
  if (bytes > FILTER_LIMITS.maxBytes)
    ctx.addIssue({
      code: 'custom',
      message: `The filter is ${bytes} bytes as JSON: at most ${FILTER_LIMITS.maxBytes}.`,
    });
  const cost = filterCost(filter);
  if (cost > FILTER_LIMITS.maxCost)
    ctx.addIssue({
      code: 'custom',
      message: `The filter costs ${cost} units to evaluate (a comparison costs its path's segments, an \`in\` adds its values): at most ${FILTER_LIMITS.maxCost}.`,
    });
}

export const filterSchema = filterNode.check(z.superRefine(checkBounds));

/** PUT …/webhook/filter and PUT …/destinations/{destination_id}/filter: the filter now, or null for none. */
export const filterChangeBody = z.strictObject({ filter: z.nullable(filterSchema) });
export type FilterChangeInput = z.output<typeof filterChangeBody>;

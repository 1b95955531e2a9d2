import { EVENT_TYPES } from '../../core/event-types.ts';
import { ID_PATTERN } from '../../core/ids.ts';
import * as z from '../../zod.ts';

/** POST …/events/replay (lib/events/replay/replay-job.ts): window and kinds; the cross-field rules (since < until, ≤ 30 days) are checked there. */
export const replayBody = z.strictObject({
  since: z.iso.datetime({ offset: true, error: 'Expected an ISO 8601 time with its zone.' }),
  until: z.optional(z.iso.datetime({ offset: true, error: 'Expected an ISO 8601 time with its zone.' })),
  types: z.optional(
    z.array(z.enum(EVENT_TYPES)).check(
      z.minLength(1, 'Give at least one kind, or leave types out for every subscribed kind.'),
      z.refine((t) => new Set(t).size === t.length, 'List each kind once.'),
    ),
  ),
  /** One of the agent's AWS destinations to replay to instead of its webhook (lib/destinations). */
  destination_id: z.optional(z.string().check(z.regex(ID_PATTERN.dst, 'Expected a destination id (dst_…).'))),
});
export type ReplayInput = z.output<typeof replayBody>;

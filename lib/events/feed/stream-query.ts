/**
 * The query of GET …/events/stream, in its own module: only the stream's bundle carries zod's
 * date-time check.
 */

import { ID_PATTERN } from '../../core/ids.ts';
import * as z from '../../zod.ts';

/** `since`: `now`, an ISO 8601 time with its zone (a real calendar date), or an event id (lib/events/feed/start-point.ts). */
const sinceTime = z.iso.datetime({ offset: true });
export const streamQuery = z.strictObject({
  after: z.optional(z.string().check(z.regex(ID_PATTERN.evt, 'Expected an event id (evt_…).'))),
  since: z.optional(
    z
      .string()
      .check(
        z.refine(
          (v) => v === 'now' || ID_PATTERN.evt.test(v) || z.safeParse(sinceTime, v).success,
          'Expected `now`, an ISO 8601 time with its zone (2026-11-23T10:00:00Z) or an event id (evt_…).',
        ),
      ),
  ),
});

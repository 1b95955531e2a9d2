/** GET …/events query, and the page size both lists of lib/events take (docs/api.md "Agents, webhooks and events"). */

import { ID_PATTERN } from '../../core/ids.ts';
import * as z from '../../zod.ts';

export const limit = z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100)), 20);

export const eventsQuery = z.strictObject({
  after: z.optional(z.string().check(z.regex(ID_PATTERN.evt, 'Expected an event id (evt_…) or a next_cursor.'))),
  limit,
});

/**
 * GET …/deliveries query. In its own module so routes that do not list deliveries (retry) do not
 * bundle the status enum: a module's top-level schemas are built on import, used or not.
 */

import { ID_PATTERN } from '../../core/ids.ts';
import * as z from '../../zod.ts';
import { DELIVERY_STATUSES } from '../feed/event.ts';
import { limit } from '../feed/list-query.ts';

export const deliveriesQuery = z.strictObject({
  cursor: z.optional(z.string().check(z.regex(ID_PATTERN.dlv, 'Expected a next_cursor (dlv_…).'))),
  status: z.optional(z.enum(DELIVERY_STATUSES)),
  limit,
});

import * as z from '../zod.ts';
import { ID_PATTERN } from '../core/ids.ts';

/** Request shapes of the event and delivery routes (API.md). Strict: unknown parameters are a 400. */
const limit = z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100)), 20);

export const agentParams = z.strictObject({ id: z.string().check(z.regex(ID_PATTERN.agt)) });

export const eventsQuery = z.strictObject({
  after: z.optional(z.string().check(z.regex(ID_PATTERN.evt, 'Expected an event id (evt_…) or a next_cursor.'))),
  limit,
});

/** `since`: `now`, an ISO 8601 time with its zone (a real calendar date), or an event id (lib/events/start-point.ts). */
const sinceTime = z.iso.datetime({ offset: true });
export const streamQuery = z.strictObject({
  after: z.optional(z.string().check(z.regex(ID_PATTERN.evt, 'Expected an event id (evt_…).'))),
  since: z.optional(
    z.string().check(
      z.refine((v) => v === 'now' || ID_PATTERN.evt.test(v) || z.safeParse(sinceTime, v).success, 'Expected `now`, an ISO 8601 time with its zone (2026-11-23T10:00:00Z) or an event id (evt_…).'),
    ),
  ),
});

export const deliveriesQuery = z.strictObject({
  cursor: z.optional(z.string().check(z.regex(ID_PATTERN.dlv, 'Expected a next_cursor (dlv_…).'))),
  limit,
});

export const deliveryParams = z.strictObject({ id: z.string().check(z.regex(ID_PATTERN.agt)), delivery_id: z.string().check(z.regex(ID_PATTERN.dlv)) });

export const isEventId = (value: string): boolean => ID_PATTERN.evt.test(value);

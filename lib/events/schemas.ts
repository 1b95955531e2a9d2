import { z } from 'zod';
import { ID_PATTERN } from '../ids.ts';

/** Request shapes of the event and delivery routes (API.md). Strict: unknown parameters are a 400. */
const limit = z.coerce.number().int().min(1).max(100).default(20);

export const agentParams = z.strictObject({ id: z.string().regex(ID_PATTERN.agt) });

export const eventsQuery = z.strictObject({
  after: z.string().regex(ID_PATTERN.evt, 'Expected an event id (evt_…) or a next_cursor.').optional(),
  limit,
});

export const streamQuery = z.strictObject({
  after: z.string().regex(ID_PATTERN.evt, 'Expected an event id (evt_…).').optional(),
});

export const deliveriesQuery = z.strictObject({
  cursor: z.string().regex(ID_PATTERN.dlv, 'Expected a next_cursor (dlv_…).').optional(),
  limit,
});

export const deliveryParams = z.strictObject({ id: z.string().regex(ID_PATTERN.agt), delivery_id: z.string().regex(ID_PATTERN.dlv) });

export const isEventId = (value: string): boolean => ID_PATTERN.evt.test(value);

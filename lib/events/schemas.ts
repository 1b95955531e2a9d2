/** Request shapes of the event and delivery routes (docs/api.md "Agents, webhooks and events"). Strict: unknown parameters are a 400. */

import { ID_PATTERN } from '../core/ids.ts';
import * as z from '../zod.ts';

export const limit = z._default(z.queryInteger(1, 100), 20);

export const agentParams = z.strictObject({ id: z.string().check(z.regex(ID_PATTERN.agt)) });

export const eventsQuery = z.strictObject({
  after: z.optional(z.string().check(z.regex(ID_PATTERN.evt, 'Expected an event id (evt_…) or a next_cursor.'))),
  limit,
});

/** POST …/retry: no body, `{}`, or `{ "force": true }` to send a delivery that already succeeded again. */
export const retryBody = z.optional(z.strictObject({ force: z.optional(z.boolean()) }));

export const deliveryParams = z.strictObject({
  id: z.string().check(z.regex(ID_PATTERN.agt)),
  delivery_id: z.string().check(z.regex(ID_PATTERN.dlv)),
});

export const isEventId = (value: string): boolean => ID_PATTERN.evt.test(value);

/** Request shapes of the agent's event and delivery routes (the lists' queries are in feed/list-query.ts and delivery/list-query.ts) (docs/api.md "Agents, webhooks and events"). Strict: unknown parameters are a 400. */

import { ID_PATTERN } from '../core/ids.ts';
import * as z from '../zod.ts';

export const agentParams = z.strictObject({ id: z.string().check(z.regex(ID_PATTERN.agt)) });

/** POST …/retry: no body, `{}`, or `{ "force": true }` to send a delivery that already succeeded again. */
export const retryBody = z.optional(z.strictObject({ force: z.optional(z.boolean()) }));

export const deliveryParams = z.strictObject({
  id: z.string().check(z.regex(ID_PATTERN.agt)),
  delivery_id: z.string().check(z.regex(ID_PATTERN.dlv)),
});

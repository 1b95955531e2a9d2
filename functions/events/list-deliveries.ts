import { deliveriesQuery } from '../../lib/events/delivery/list-query.ts';
import { agentParams } from '../../lib/events/schemas.ts';
import { agentDeliveries } from '../../lib/events/service.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

/** GET /api/v1/agents/:id/deliveries: every delivery (or those of one `status`), newest first. */
export const handler = httpRoute({ params: agentParams, query: deliveriesQuery }, async ({ caller, params, query }) =>
  ok(await agentDeliveries(caller, params.id, query)),
);

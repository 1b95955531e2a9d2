import { deliveryParams } from '../../lib/events/schemas.ts';
import { agentDelivery } from '../../lib/events/service.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

/** GET /api/v1/agents/:id/deliveries/:delivery_id: one delivery with its attempt history, oldest attempt first. */
export const handler = httpRoute({ params: deliveryParams }, async ({ caller, params }) =>
  ok(await agentDelivery(caller, params.id, params.delivery_id)),
);

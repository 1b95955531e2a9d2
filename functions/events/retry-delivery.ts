import { accepted } from '../../lib/http/responses.ts';
import { httpRoute } from '../../lib/http/stack.ts';
import { retryAgentDelivery } from '../../lib/events/service.ts';
import { deliveryParams } from '../../lib/events/schemas.ts';

/** POST /api/v1/agents/:id/deliveries/:delivery_id/retry: 202, the event is sent again now. */
export const handler = httpRoute({ params: deliveryParams }, async ({ caller, params }) =>
  accepted(await retryAgentDelivery(caller, params.id, params.delivery_id)),
);

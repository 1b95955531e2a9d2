import { deliveryParams, retryBody } from '../../lib/events/schemas.ts';
import { retryAgentDelivery } from '../../lib/events/service.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { accepted } from '../../lib/http/responses.ts';

/** POST /api/v1/agents/:id/deliveries/:delivery_id/retry: 202, one extra attempt now (`{"force": true}` for a succeeded one). */
export const handler = httpRoute(
  { params: deliveryParams, body: retryBody },
  async ({ caller, params, body, sealAnswer }) =>
    accepted(
      await retryAgentDelivery(caller, params.id, params.delivery_id, body?.force === true, sealAnswer(accepted)),
    ),
);

import { agentParams } from '../../lib/events/schemas.ts';
import { sendTestEvent } from '../../lib/events/test-event.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { accepted } from '../../lib/http/responses.ts';

/** POST /api/v1/agents/:id/webhook/test: 202 {event_id}; a signed `service.webhook.test` event goes to the ENABLED webhook. */
export const handler = httpRoute({ params: agentParams }, async ({ caller, params, sealAnswer }) =>
  accepted(await sendTestEvent(caller, params.id, sealAnswer(accepted))),
);

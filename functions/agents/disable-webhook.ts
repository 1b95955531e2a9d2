import { agentIdParams } from '../../lib/agents/schemas.ts';
import { disableWebhookAndAnnounce } from '../../lib/events/service.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

export const handler = httpRoute({ params: agentIdParams }, async ({ caller, params, sealAnswer }) =>
  ok(await disableWebhookAndAnnounce(caller, params.id, sealAnswer(ok))),
);

import { configureWebhook } from '../../lib/agents/configure-webhook.ts';
import { agentIdParams } from '../../lib/agents/schemas.ts';
import { configureWebhookBody } from '../../lib/agents/webhook-body.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

export const handler = httpRoute(
  { params: agentIdParams, body: configureWebhookBody },
  async ({ caller, params, body, sealAnswer }) => ok(await configureWebhook(caller, params.id, body, sealAnswer(ok))),
);

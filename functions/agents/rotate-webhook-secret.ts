import { agentIdParams, rotateSecretBody } from '../../lib/agents/schemas.ts';
import { rotateWebhookSecret } from '../../lib/agents/webhook-config.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

export const handler = httpRoute(
  { params: agentIdParams, body: rotateSecretBody },
  async ({ caller, params, body, sealAnswer }) =>
    ok(await rotateWebhookSecret(caller, params.id, body, sealAnswer(ok))),
);

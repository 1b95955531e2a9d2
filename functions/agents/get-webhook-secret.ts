import { agentIdParams } from '../../lib/agents/schemas.ts';
import { getWebhookSecret } from '../../lib/agents/webhook-config.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

export const handler = httpRoute({ params: agentIdParams }, async ({ caller, params }) =>
  ok(await getWebhookSecret(caller, params.id)),
);

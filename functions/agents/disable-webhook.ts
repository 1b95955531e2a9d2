import { agentIdParams } from '../../lib/agents/schemas.ts';
import { disableWebhook } from '../../lib/agents/webhook-config.ts';
import { ok } from '../../lib/http/responses.ts';
import { httpRoute } from '../../lib/http/stack.ts';

export const handler = httpRoute({ params: agentIdParams }, async ({ caller, params }) =>
  ok(await disableWebhook(caller, params.id)),
);

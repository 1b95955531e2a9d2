import { agentIdParams } from '../../lib/agents/schemas.ts';
import { verifyWebhook } from '../../lib/agents/verify.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

/** Waits up to 10 s on the endpoint; the route table gives this function a 15 s timeout for that. */
export const handler = httpRoute({ params: agentIdParams }, async ({ caller, params, sealAnswer }) =>
  ok(await verifyWebhook(caller, params.id, {}, {}, sealAnswer(ok))),
);

import { agentIdParams, rotateSecretBody } from '../../lib/agents/schemas.ts';
import { rotateSigningKey } from '../../lib/agents/signing-keys.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

export const handler = httpRoute(
  { params: agentIdParams, body: rotateSecretBody },
  async ({ caller, params, body, sealAnswer }) => ok(await rotateSigningKey(caller, params.id, body, sealAnswer(ok))),
);

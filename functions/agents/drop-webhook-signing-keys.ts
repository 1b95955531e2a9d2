import { agentIdParams } from '../../lib/agents/schemas.ts';
import { dropSigningKeys } from '../../lib/agents/signing-keys.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

export const handler = httpRoute({ params: agentIdParams }, async ({ caller, params, sealAnswer }) =>
  ok(await dropSigningKeys(caller, params.id, sealAnswer(ok))),
);

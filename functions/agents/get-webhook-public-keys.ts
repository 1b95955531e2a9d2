import { agentIdParams } from '../../lib/agents/schemas.ts';
import { getPublicKeys } from '../../lib/agents/signing-keys.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

export const handler = httpRoute({ params: agentIdParams }, async ({ caller, params }) =>
  ok(await getPublicKeys(caller, params.id)),
);

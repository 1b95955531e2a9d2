import { agentIdParams } from '../../lib/agents/schemas.ts';
import { agentJwks } from '../../lib/agents/signing-keys.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

/** GET /api/v1/webhook-keys/{id}, no key: an agent's live ed25519 public keys as a JWKS. */
export const handler = httpRoute({ params: agentIdParams, keyless: true }, async ({ params }) =>
  ok(await agentJwks(params.id)),
);

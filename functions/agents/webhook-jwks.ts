import { agentIdParams } from '../../lib/agents/schemas.ts';
import { agentJwks } from '../../lib/agents/signing-keys.ts';
import { JWKS_MAX_AGE_SECONDS } from '../../lib/core/settings.ts';
import { cacheableOk } from '../../lib/http/cacheable.ts';
import { httpRoute } from '../../lib/http/middleware.ts';

/** GET /api/v1/webhook-keys/{id}, no key: an agent's live ed25519 public keys as a JWKS, cacheable (ETag, 304). */
export const handler = httpRoute({ params: agentIdParams, keyless: true }, async ({ params, headers }) =>
  cacheableOk(await agentJwks(params.id), headers, JWKS_MAX_AGE_SECONDS),
);

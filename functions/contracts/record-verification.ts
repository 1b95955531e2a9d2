import { contractParams, verificationBody } from '../../lib/contracts/schemas.ts';
import { transitionContract } from '../../lib/contracts/service.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

/** POST /api/v1/contracts/:id/verification: FUNDED → VERIFIED or VERIFICATION_FAILED, with its event. */
export const handler = httpRoute(
  { params: contractParams, body: verificationBody },
  async ({ caller, params, body, sealAnswer }) =>
    ok(await transitionContract(caller, params.id, 'verification', body, sealAnswer(ok))),
);

import { contractParams } from '../../lib/contracts/schemas.ts';
import { transitionContract } from '../../lib/contracts/service.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

/** POST /api/v1/contracts/:id/refund: FUNDED or VERIFICATION_FAILED → REFUNDED, with its event for every party agent. */
export const handler = httpRoute({ params: contractParams }, async ({ caller, params, sealAnswer }) =>
  ok(await transitionContract(caller, params.id, 'refund', undefined, sealAnswer(ok))),
);

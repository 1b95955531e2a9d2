import { contractParams } from '../../lib/contracts/schemas.ts';
import { getContract } from '../../lib/contracts/service.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

/** GET /api/v1/contracts/:id: to the owners of its agents only. */
export const handler = httpRoute({ params: contractParams }, async ({ caller, params }) =>
  ok(await getContract(caller, params.id)),
);

import { listContractsQuery } from '../../lib/contracts/schemas.ts';
import { listContracts } from '../../lib/contracts/service.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

/** GET /api/v1/contracts?status=&agent_id=: the caller's contracts, newest first. */
export const handler = httpRoute({ query: listContractsQuery }, async ({ caller, query }) =>
  ok(await listContracts(caller, query)),
);

import { createContractBody } from '../../lib/contracts/schemas.ts';
import { type ContractView, createContract } from '../../lib/contracts/service.ts';
import { BASE_PATHS } from '../../lib/core/settings.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { created } from '../../lib/http/responses.ts';

const answer = (contract: ContractView) => created(contract, `${BASE_PATHS.agents}/contracts/${contract.id}`);

/** POST /api/v1/contracts: a contract from a template, its variables checked and its checks filled in. */
export const handler = httpRoute({ body: createContractBody }, async ({ caller, body, sealAnswer }) =>
  answer(await createContract(caller, body, sealAnswer(answer))),
);

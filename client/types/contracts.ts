/** Contracts (docs/api.md "Contracts"): the minimal life that produces the agent events. */
import type * as OpenApiTypes from './openapi.ts';

export type ContractStatus = OpenApiTypes.ContractStatus;

export type Contract = OpenApiTypes.Contract;

/** `amount_cents`: an integer in minor currency units; `agent_id`: the buying agent, one of the caller's. */
export type CreateContractInput = OpenApiTypes.CreateContractBody;

/** `templates.instantiate(templateId, …)`: the same input without the template id. */
export type InstantiateTemplateInput = Omit<CreateContractInput, 'template_id'>;

export type RecordVerificationInput = OpenApiTypes.RecordVerificationBody;

/** `agent_id`: one of the caller's agents (only the contracts it is a party to); `limit` 1–100, default 20. */
export type ListContractsParams = OpenApiTypes.ListContractsQuery;

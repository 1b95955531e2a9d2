/** Contracts (docs/api.md "Contracts"): the minimal life that produces the agent events. */
import type * as OpenApiTypes from './openapi.ts';

export type ContractStatus = OpenApiTypes.ContractStatus;

export type Contract = OpenApiTypes.Contract;

export interface CreateContractInput {
  template_id: string;
  variables: Record<string, unknown>;
  /** Integer, minor currency units. */
  amount_cents: number;
  /** The buying agent; must be one of the caller's. */
  agent_id: string;
  seller_agent_id?: string;
}

/** `templates.instantiate(templateId, …)`: the same input without the template id. */
export type InstantiateTemplateInput = Omit<CreateContractInput, 'template_id'>;

export interface RecordVerificationInput {
  passed: boolean;
  results?: Record<string, unknown>;
}

export interface ListContractsParams {
  status?: ContractStatus;
  /** One of the caller's agents: only the contracts it is a party to. */
  agent_id?: string;
  /** 1–100, default 20. */
  limit?: number;
  cursor?: string;
}

/** Contracts (docs/api.md "Contracts"): the minimal life that produces the agent events. */
import type { TemplateCheck } from './marketplace.ts';

export type ContractStatus = 'CREATED' | 'FUNDED' | 'VERIFIED' | 'VERIFICATION_FAILED' | 'RELEASED' | 'REFUNDED';

export interface Contract {
  id: string;
  template_id: string;
  template_version: string;
  agent_id: string;
  seller_agent_id: string | null;
  variables: Record<string, unknown>;
  amount_cents: number;
  status: ContractStatus;
  /** The template's checks with `{{variable}}` filled in. */
  checks: TemplateCheck[];
  created_at: string;
  updated_at: string;
}

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

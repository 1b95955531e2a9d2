import { getAgent } from '../agents/store.ts';
import { ownAgent } from '../agents/agents.ts';
import { outboxRows } from '../events/outbox.ts';
import type { Caller } from '../http/caller.ts';
import { AppError, notFound, validationError } from '../http/errors.ts';
import { newId, nowIso } from '../ids.ts';
import type { CreateContractInput, VerificationInput } from './schemas.ts';
import { insertContract, moveContract, readContract, type ContractRecord } from './store.ts';
import { templateForContract } from './template-source.ts';
import { canMove, targetStatus, TRANSITIONS, type ContractAction } from './transitions.ts';
import { fillChecks, resolveVariables } from './variables.ts';

export type ContractView = Omit<ContractRecord, 'party_owner_ids' | 'verification'>;

export function toContractView(record: ContractRecord): ContractView {
  const { id, template_id, template_version, agent_id, seller_agent_id, variables, amount_cents, status, checks, created_at, updated_at } = record;
  return { id, template_id, template_version, agent_id, seller_agent_id, variables, amount_cents, status, checks, created_at, updated_at };
}

async function partyOwners(caller: Caller, input: CreateContractInput): Promise<string[]> {
  const agent = await ownAgent(caller, input.agent_id);
  if (input.seller_agent_id === undefined) return [agent.owner_id];
  if (input.seller_agent_id === input.agent_id) {
    throw validationError([{ path: 'seller_agent_id', message: 'The seller must be another agent than agent_id.' }]);
  }
  const seller = await getAgent(input.seller_agent_id);
  if (!seller) throw notFound('Seller agent');
  return [...new Set([agent.owner_id, seller.owner_id])];
}

export async function createContract(caller: Caller, input: CreateContractInput): Promise<ContractView> {
  const owners = await partyOwners(caller, input);
  const template = await templateForContract(caller, input.template_id);
  const variables = resolveVariables(template.variables, input.variables);
  const checks = fillChecks(template.checks, variables);
  const now = nowIso();
  const contract: ContractRecord = {
    id: newId('ctr'),
    template_id: template.id,
    template_version: template.version,
    agent_id: input.agent_id,
    seller_agent_id: input.seller_agent_id ?? null,
    variables,
    amount_cents: input.amount_cents,
    status: 'CREATED',
    checks,
    created_at: now,
    updated_at: now,
    party_owner_ids: owners,
  };
  if (!(await insertContract(contract))) throw notFound('Template');
  return toContractView(contract);
}

/** Only the owners of the contract's agents see it; for anyone else it does not exist. */
async function visibleContract(caller: Caller, contractId: string): Promise<ContractRecord> {
  const contract = await readContract(contractId);
  if (!contract || !contract.party_owner_ids.includes(caller.userId)) throw notFound('Contract');
  return contract;
}

export async function getContract(caller: Caller, contractId: string): Promise<ContractView> {
  return toContractView(await visibleContract(caller, contractId));
}

const invalidTransition = (action: ContractAction, contract: ContractRecord) =>
  new AppError('invalid_transition', `A ${contract.status} contract cannot take "${action}"; it needs one of: ${TRANSITIONS[action].from.join(', ')}.`);

/**
 * A transition: the new status and one event per party agent in one transaction, guarded by the
 * status read, so two concurrent moves cannot both win and no event exists without its change.
 */
export async function transitionContract(caller: Caller, contractId: string, action: ContractAction, verification?: VerificationInput): Promise<ContractView> {
  const contract = await visibleContract(caller, contractId);
  if (!canMove(action, contract.status)) throw invalidTransition(action, contract);
  const to = targetStatus(action, verification?.passed);
  const now = nowIso();
  const data = {
    contract_id: contract.id,
    status: to,
    amount_cents: contract.amount_cents,
    ...(verification ? { passed: verification.passed, ...(verification.results ? { results: verification.results } : {}) } : {}),
  };
  const parties = [contract.agent_id, ...(contract.seller_agent_id ? [contract.seller_agent_id] : [])];
  const rows = await outboxRows(parties, TRANSITIONS[action].event, data, now);
  const extra = verification ? { verification } : {};
  if (!(await moveContract(contract, to, extra, rows, now))) {
    throw invalidTransition(action, (await readContract(contractId)) ?? contract);
  }
  return toContractView({ ...contract, ...extra, status: to, updated_at: now });
}

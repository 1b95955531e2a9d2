import { ownAgent } from '../agents/agents.ts';
import { getAgent } from '../agents/store.ts';
import type { Caller } from '../core/caller.ts';
import { AppError, forbidden, notFound, validationError } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import { nowIso } from '../core/time.ts';
import { commitWithEvents } from '../events/feed/outbox.ts';
import type { CommitAlong } from '../store/transact.ts';
import type { Contract } from './answer.ts';
import { rolesOf } from './parties.ts';
import type { CreateContractInput, ListContractsQuery, VerificationInput } from './schemas.ts';
import {
  type ContractRecord,
  contractIdsOf,
  contractMove,
  insertContract,
  readContract,
  readContracts,
} from './store.ts';
import { type TemplateForContract, templateForContract } from './template-source.ts';
import { type ContractAction, canMove, mayTake, startStatuses, TRANSITIONS, targetStatus } from './transitions.ts';
import { fillChecks, resolveVariables } from './variables.ts';

/** A contract as the API shows it (answer.ts): the record without who may see it and the verification. */
export type ContractView = Contract;

export function toContractView(record: ContractRecord): ContractView {
  const {
    id,
    template_id,
    template_version,
    agent_id,
    seller_agent_id,
    variables,
    amount_cents,
    status,
    checks,
    created_at,
    updated_at,
  } = record;
  return {
    id,
    template_id,
    template_version,
    agent_id,
    seller_agent_id,
    variables,
    amount_cents,
    status,
    checks,
    created_at,
    updated_at,
  };
}

/**
 * The consent rule (docs/events.md): a seller agent must belong to the template's author, who
 * consented to contracts on the template by publishing it. Anything else (an unknown agent,
 * somebody else's) gets one and the same answer, so the answer tells nothing about other
 * accounts, and no event ever reaches an agent whose owner did not agree to the contract.
 */
async function checkSeller(input: CreateContractInput, template: TemplateForContract): Promise<void> {
  if (input.seller_agent_id === undefined) return;
  if (input.seller_agent_id === input.agent_id) {
    throw validationError([{ path: 'seller_agent_id', message: 'The seller must be another agent than agent_id.' }]);
  }
  const seller = await getAgent(input.seller_agent_id);
  if (!seller || seller.owner_id !== template.authorId) {
    throw validationError([{ path: 'seller_agent_id', message: "Expected an agent of the template's author." }]);
  }
}

/** `along`: items committed with the contract (the request's Idempotency-Key answer), so a retry after a late commit finds it. */
export async function createContract(
  caller: Caller,
  input: CreateContractInput,
  along?: CommitAlong<ContractView>,
): Promise<ContractView> {
  const buyer = await ownAgent(caller, input.agent_id);
  // A new version published or the current one yanked between the read and the insert: read it again.
  for (let attempt = 1; ; attempt++) {
    const template = await templateForContract(caller, input.template_id, attempt > 1, input.template_version);
    const view = await insertFrom(buyer.owner_id, template, input, along);
    if (view) return view;
    if (attempt >= 3) throw notFound('Template');
  }
}

async function insertFrom(
  buyerOwnerId: string,
  template: TemplateForContract,
  input: CreateContractInput,
  along?: CommitAlong<ContractView>,
): Promise<ContractView | undefined> {
  await checkSeller(input, template);
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
    party_owner_ids: [...new Set([buyerOwnerId, template.authorId])],
    buyer_owner_id: buyerOwnerId,
    seller_owner_id: template.authorId,
  };
  const view = toContractView(contract);
  return (await insertContract(contract, along?.(view), template.older)) ? view : undefined;
}

/** Only the owners of the contract's agents see it; for anyone else it does not exist. */
async function visibleContract(caller: Caller, contractId: string): Promise<ContractRecord> {
  const contract = await readContract(contractId);
  if (!contract?.party_owner_ids.includes(caller.userId)) throw notFound('Contract');
  return contract;
}

/**
 * The caller's contracts (or those of one of the caller's agents), newest first, a page of links
 * then one BatchGetItem. The status index is eventually consistent, so each contract's own status
 * is checked again: a contract that moved a moment ago can be missing from a filtered page, never
 * shown under the wrong status.
 */
export async function listContracts(
  caller: Caller,
  query: ListContractsQuery,
): Promise<{ data: ContractView[]; next_cursor: string | null }> {
  const party = query.agent_id === undefined ? caller.userId : (await ownAgent(caller, query.agent_id)).id;
  const page = await contractIdsOf(party, query.status, query.limit, query.cursor);
  const contracts = (await readContracts(page.ids)).filter(
    (c) => c.party_owner_ids.includes(caller.userId) && (query.status === undefined || c.status === query.status),
  );
  return { data: contracts.map(toContractView), next_cursor: page.more ? page.ids[page.ids.length - 1]! : null };
}

export async function getContract(caller: Caller, contractId: string): Promise<ContractView> {
  return toContractView(await visibleContract(caller, contractId));
}

const invalidTransition = (action: ContractAction, contract: ContractRecord) =>
  new AppError(
    'invalid_transition',
    `A ${contract.status} contract cannot take "${action}"; it needs one of: ${startStatuses(action).join(', ')}.`,
  );

const notYourStep = (action: ContractAction, contract: ContractRecord) => {
  const roles = [...new Set(Object.values(TRANSITIONS[action].from).flat())];
  return forbidden(`Only the ${roles.join(' or the ')} may take "${action}" on a ${contract.status} contract.`);
};

/**
 * A transition: the new status and one event per party agent in one transaction, guarded by the
 * status read, so two concurrent moves cannot both win and no event exists without its change.
 * Only a party whose role may take the step from the current status moves it (transitions.ts).
 * `along`: items committed with the move (the request's Idempotency-Key answer), so a move whose
 * answer was lost is answered, not refused, on a retry under the same key.
 */
export async function transitionContract(
  caller: Caller,
  contractId: string,
  action: ContractAction,
  verification?: VerificationInput,
  along?: CommitAlong<ContractView>,
): Promise<ContractView> {
  const contract = await visibleContract(caller, contractId);
  if (!canMove(action, contract.status)) throw invalidTransition(action, contract);
  if (!mayTake(action, contract.status, rolesOf(contract, caller))) throw notYourStep(action, contract);
  const to = targetStatus(action, verification?.passed);
  const data = {
    contract_id: contract.id,
    status: to,
    amount_cents: contract.amount_cents,
    ...(verification
      ? { passed: verification.passed, ...(verification.results ? { results: verification.results } : {}) }
      : {}),
  };
  const parties = [contract.agent_id, ...(contract.seller_agent_id ? [contract.seller_agent_id] : [])];
  const extra = verification ? { verification } : {};
  let movedAt = '';
  const moved = (now: string) => toContractView({ ...contract, ...extra, status: to, updated_at: now });
  const change = (now: string) => {
    movedAt = now;
    return contractMove(contract, to, extra, now);
  };
  const result = await commitWithEvents(
    change,
    { agentIds: parties, type: TRANSITIONS[action].event, data },
    along && ((now) => along(moved(now))),
  );
  if (!result.committed) throw invalidTransition(action, (await readContract(contractId)) ?? contract);
  return moved(movedAt);
}

/**
 * The caller's roles in a contract. One account may hold both (an author buying from its own
 * template). Contracts made before roles were stored name their parties only in
 * `party_owner_ids` (buyer first, then the seller agent's owner if any); a single party there
 * stood on both sides.
 */
import type { Caller } from '../core/caller.ts';
import type { ContractRecord } from './store.ts';
import type { Role } from './transitions.ts';

export function rolesOf(contract: ContractRecord, caller: Caller): Role[] {
  const buyer = contract.buyer_owner_id ?? contract.party_owner_ids[0];
  const seller = contract.seller_owner_id ?? contract.party_owner_ids[1] ?? contract.party_owner_ids[0];
  return [
    ...(caller.userId === buyer ? (['buyer'] as const) : []),
    ...(caller.userId === seller ? (['seller'] as const) : []),
  ];
}

import { tableName } from '../store/client.ts';
import { ENTITY, contractLinkKeys as keys } from '../store/keys.ts';
import type { TransactItem } from '../store/transact.ts';
import { buildUpdate } from '../store/update-expression.ts';
import type { ContractStatus } from './transitions.ts';

/** The parties of a contract (a ContractRecord has them; not imported, since store.ts imports this module). */
interface ContractParties {
  id: string;
  agent_id: string;
  seller_agent_id?: string | null | undefined;
  party_owner_ids: readonly string[];
}

/**
 * GET /contracts without a Scan: every contract has a small link item per party user (the buyer
 * and the template's author) and per party agent, under that party's partition, sorted by
 * contract id (newest first), and in GSI1 under `CTRS#<party>#<status>` for the status filter.
 * The links are written in the same transactions as the contract (creation and every move), so
 * a link's status is the contract's. Written as upserts: a contract from before links existed
 * gets its links at its next move. They are read by `contractIdsOf` in store.ts.
 */
export function linkWrites(contract: ContractParties, status: ContractStatus): TransactItem[] {
  const parties = [
    ...new Set([
      ...contract.party_owner_ids,
      contract.agent_id,
      ...(contract.seller_agent_id ? [contract.seller_agent_id] : []),
    ]),
  ];
  return parties.map((party) => ({
    Update: {
      TableName: tableName(),
      Key: keys.link(party, contract.id),
      ...buildUpdate({
        set: {
          entity: ENTITY.contractLink,
          contract_id: contract.id,
          status,
          ...keys.index(party, status, contract.id),
        },
      }),
    },
  }));
}

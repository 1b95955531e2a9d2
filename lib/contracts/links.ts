import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../store/client.ts';
import { ENTITY, contractLinkKeys as keys } from '../store/keys.ts';
import { INDEXES } from '../store/table.ts';
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
 * gets its links at its next move.
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

/** Contract ids of one party, newest first, after `afterId`; reads `limit + 1` links to know whether more exist. */
export async function contractIdsOf(
  party: string,
  status: ContractStatus | undefined,
  limit: number,
  afterId?: string,
): Promise<{ ids: string[]; more: boolean }> {
  const base = keys.link(party, afterId ?? '');
  const query = status
    ? {
        IndexName: INDEXES.gsi1.name,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': INDEXES.gsi1.partitionKey },
        ExpressionAttributeValues: { ':pk': keys.byStatusPk(party, status) },
        ...(afterId ? { ExclusiveStartKey: { ...base, ...keys.index(party, status, afterId) } } : {}),
      }
    : {
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': base.PK, ':prefix': keys.prefix },
        ConsistentRead: true,
        ...(afterId ? { ExclusiveStartKey: base } : {}),
      };
  const { Items = [] } = await db().send(
    new QueryCommand({ TableName: tableName(), ScanIndexForward: false, Limit: limit + 1, ...query }),
  );
  return { ids: Items.slice(0, limit).map((item) => item['contract_id'] as string), more: Items.length > limit };
}

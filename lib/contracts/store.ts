/**
 * DynamoDB access for contracts. Creation is one transaction (the contract and the template's
 * `contracts_created` counter); a move is one conditional update that lib/events commits in one
 * transaction with its events.
 */

import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { InvariantError } from '../core/errors.ts';
import { countStats } from '../marketplace/stats/count.ts';
import { sortableVersion } from '../marketplace/templates/version.ts';
import { batchGet, keyString } from '../store/batch.ts';
import { db, tableName } from '../store/client.ts';
import * as keys from '../store/key-builders.ts';
import { contractLinkKeys, ENTITY } from '../store/keys.ts';
import { INDEXES } from '../store/table.ts';
import { alongLost, alongRefused, type TransactItem, transactWrite } from '../store/transact.ts';
import { buildUpdate } from '../store/update-expression.ts';
import type { Contract } from './answer.ts';
import { linkWrites } from './links.ts';
import type { ContractStatus } from './transitions.ts';

export interface ContractRecord {
  id: string;
  template_id: string;
  template_version: string;
  agent_id: string;
  seller_agent_id: string | null;
  variables: Record<string, unknown>;
  amount_cents: number;
  status: ContractStatus;
  checks: Contract['checks'];
  created_at: string;
  updated_at: string;
  /** The buyer (owner of agent_id) and the seller (the template's author): who may see the contract. */
  party_owner_ids: string[];
  /** Roles, copied at creation so moves are authorised without other reads; absent on older contracts (parties.ts). */
  buyer_owner_id?: string;
  seller_owner_id?: string;
  verification?: { passed: boolean; results?: Record<string, unknown> };
}

export async function readContract(contractId: string): Promise<ContractRecord | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.contract(contractId), ConsistentRead: true }),
  );
  return Item as ContractRecord | undefined;
}

/**
 * false when the template vanished or changed its current version meanwhile (the caller reads it again). Many contracts made from one template at once
 * collide on its counter; transactWrite retries those conflicts instead of failing the request.
 * `along`: items that commit with it (store/transact.ts, CommitAlong).
 */
export async function insertContract(
  contract: ContractRecord,
  along: TransactItem[] = [],
  older?: { yankedKept: boolean },
): Promise<boolean> {
  // Made from an older version (the workspace's installed one, or one named): that version item is
  // checked instead of the template's current version.
  const fromCurrent = older === undefined;
  const versionCheck: TransactItem[] = fromCurrent
    ? []
    : [
        {
          ConditionCheck: {
            TableName: tableName(),
            Key: keys.version(contract.template_id, sortableVersion(contract.template_version)),
            ConditionExpression: older.yankedKept
              ? 'attribute_exists(PK)'
              : 'attribute_exists(PK) AND attribute_not_exists(yanked_at)',
          },
        },
      ];
  const result = await transactWrite([
    {
      Put: {
        TableName: tableName(),
        Item: { ...keys.contract(contract.id), entity: ENTITY.contract, ...contract },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: keys.template(contract.template_id),
        UpdateExpression: 'ADD contracts_created :one',
        // Made from the current version, not yanked since it was read (lib/marketplace/lifecycle).
        ...(fromCurrent
          ? {
              ConditionExpression: 'attribute_exists(PK) AND #v = :version AND attribute_not_exists(all_yanked)',
              ExpressionAttributeNames: { '#v': 'version' },
              ExpressionAttributeValues: { ':one': 1, ':version': contract.template_version },
            }
          : { ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: { ':one': 1 } }),
      },
    },
    ...linkWrites(contract, contract.status),
    countStats(contract.template_id, contract.template_version, contract.created_at, { contracts_created: 1 }),
    ...versionCheck,
    ...along,
  ]);
  if (result.ok) return true;
  if (alongRefused(result.reasons, along.length)) throw alongLost();
  if (result.reasons[1] === 'ConditionalCheckFailed') return false;
  if (!fromCurrent && result.reasons.at(-1 - along.length) === 'ConditionalCheckFailed') return false;
  throw new InvariantError(`contract insert refused: ${result.reasons.join(', ')}`);
}

/**
 * The move from the status read to `to`, as transaction items: the contract's update first (it
 * fails if the status changed meanwhile), then its links' new status (links.ts).
 */
export function contractMove(
  contract: ContractRecord,
  to: ContractStatus,
  extra: Partial<ContractRecord>,
  now: string,
): TransactItem[] {
  const update = buildUpdate(
    { set: { ...extra, status: to, updated_at: now } },
    { condition: '#from = :from', names: { '#from': 'status' }, values: { ':from': contract.status } },
  );
  return [
    { Update: { TableName: tableName(), Key: keys.contract(contract.id), ...update } },
    ...linkWrites(contract, to),
  ];
}

/** The contracts for `ids`, in that order (a missing one is left out). */
export async function readContracts(ids: readonly string[]): Promise<ContractRecord[]> {
  const found = await batchGet(ids.map((id) => keys.contract(id)));
  return ids
    .map((id) => found.get(keyString(keys.contract(id))) as ContractRecord | undefined)
    .filter((c): c is ContractRecord => c !== undefined);
}

/** Contract ids of one party, newest first, after `afterId`; reads `limit + 1` links to know whether more exist. */
export async function contractIdsOf(
  party: string,
  status: ContractStatus | undefined,
  limit: number,
  afterId?: string,
): Promise<{ ids: string[]; more: boolean }> {
  const base = contractLinkKeys.link(party, afterId ?? '');
  const query = status
    ? {
        IndexName: INDEXES.gsi1.name,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': INDEXES.gsi1.partitionKey },
        ExpressionAttributeValues: { ':pk': contractLinkKeys.byStatusPk(party, status) },
        ...(afterId ? { ExclusiveStartKey: { ...base, ...contractLinkKeys.index(party, status, afterId) } } : {}),
      }
    : {
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': base.PK, ':prefix': contractLinkKeys.prefix },
        ConsistentRead: true,
        ...(afterId ? { ExclusiveStartKey: base } : {}),
      };
  const { Items = [] } = await db().send(
    new QueryCommand({ TableName: tableName(), ScanIndexForward: false, Limit: limit + 1, ...query }),
  );
  return { ids: Items.slice(0, limit).map((item) => item['contract_id'] as string), more: Items.length > limit };
}

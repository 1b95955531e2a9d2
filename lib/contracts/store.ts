import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../store/client.ts';
import { ENTITY, keys } from '../store/keys.ts';
import type { OutboxRow } from '../events/outbox.ts';
import type { ContractStatus } from './transitions.ts';
import { buildUpdate } from '../store/update-expression.ts';

/**
 * DynamoDB access for contracts. Both writes are one transaction: the contract and the
 * template's `contracts_created` counter; the state change and its outbox rows.
 */
export interface ContractRecord {
  id: string;
  template_id: string;
  template_version: string;
  agent_id: string;
  seller_agent_id: string | null;
  variables: Record<string, unknown>;
  amount_cents: number;
  status: ContractStatus;
  checks: unknown[];
  created_at: string;
  updated_at: string;
  /** Owners of the party agents, copied at creation: reads and moves are authorised without reading the agents. */
  party_owner_ids: string[];
  verification?: { passed: boolean; results?: Record<string, unknown> };
}

export async function readContract(contractId: string): Promise<ContractRecord | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.contract(contractId), ConsistentRead: true }));
  return Item as ContractRecord | undefined;
}

const conditionFailed = (err: unknown, index: number): boolean =>
  err instanceof TransactionCanceledException && err.CancellationReasons?.[index]?.Code === 'ConditionalCheckFailed';

/** false when the template vanished meanwhile. */
export async function insertContract(contract: ContractRecord): Promise<boolean> {
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName(), Item: { ...keys.contract(contract.id), entity: ENTITY.contract, ...contract }, ConditionExpression: 'attribute_not_exists(PK)' } },
          {
            Update: {
              TableName: tableName(),
              Key: keys.template(contract.template_id),
              UpdateExpression: 'ADD contracts_created :one',
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeValues: { ':one': 1 },
            },
          },
        ],
      }),
    );
    return true;
  } catch (err) {
    if (conditionFailed(err, 1)) return false;
    throw err;
  }
}

/** Moves the contract from `from` to `to` and writes the outbox rows; false when the status was no longer `from`. */
export async function moveContract(
  contract: ContractRecord,
  to: ContractStatus,
  extra: Partial<ContractRecord>,
  rows: readonly OutboxRow[],
  now: string,
): Promise<boolean> {
  const update = buildUpdate(
    { set: { ...extra, status: to, updated_at: now } },
    { condition: '#from = :from', names: { '#from': 'status' }, values: { ':from': contract.status } },
  );
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Update: { TableName: tableName(), Key: keys.contract(contract.id), ...update } },
          ...rows.map((row) => ({ Put: { TableName: tableName(), Item: row.item, ConditionExpression: 'attribute_not_exists(PK)' } })),
        ],
      }),
    );
    return true;
  } catch (err) {
    if (conditionFailed(err, 0)) return false;
    throw err;
  }
}

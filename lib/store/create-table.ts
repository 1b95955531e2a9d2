/**
 * Creates the table and its indexes if missing (local runtime, tests, benchmarks). In AWS the CDK
 * stack creates it from the same definition. Returns true when it made a new table.
 */

import {
  type AttributeDefinition,
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { InvariantError } from '../core/errors.ts';
import { db } from './client.ts';
import { indexList, TABLE_KEYS, TTL_ATTRIBUTE } from './table.ts';

/** Every table has a stream: the relay and the search indexer read it. */
export const STREAM_SPECIFICATION = { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } as const;

export async function ensureTable(name: string): Promise<boolean> {
  const attributes = new Map<string, 'S' | 'N'>([
    [TABLE_KEYS.partitionKey, 'S'],
    [TABLE_KEYS.sortKey, 'S'],
  ]);
  for (const index of indexList) {
    attributes.set(index.partitionKey, 'S');
    attributes.set(index.sortKey, index.sortKeyType ?? 'S');
  }
  const AttributeDefinitions: AttributeDefinition[] = [...attributes].map(([AttributeName, AttributeType]) => ({
    AttributeName,
    AttributeType,
  }));
  try {
    await db().send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions,
        KeySchema: [
          { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: indexList.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: index.projection },
        })),
        StreamSpecification: STREAM_SPECIFICATION,
      }),
    );
  } catch (err) {
    if (err instanceof ResourceInUseException) return false;
    throw err;
  }
  await db().send(
    new UpdateTimeToLiveCommand({
      TableName: name,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    }),
  );
  return true;
}

/** The table's stream ARN (the local stream poller reads it). */
export async function streamArn(name: string): Promise<string> {
  const { Table } = await db().send(new DescribeTableCommand({ TableName: name }));
  const arn = Table?.LatestStreamArn;
  if (!arn) throw new InvariantError(`table ${name} has no stream`);
  return arn;
}

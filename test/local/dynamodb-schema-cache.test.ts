import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * local/emulators/ParsedSchemaCache.java: the emulator keeps the schemas it parsed, keyed by their
 * stored bytes, and hands out copies. Databases on one emulator (an access key id each, as the
 * test files have) hold the same table definition, so they share a cache entry: a change made
 * through one database's copy must not reach another's. Without the copies, the second
 * UpdateTimeToLive below fails with "TimeToLive is already enabled" (measured with a cache that
 * returned the parsed object itself).
 */
/** A database of its own on the file's emulator (its access key id), and the table made in it. */
type Database = { client: DynamoDBClient; table: string };
const made: Database[] = [];

function database(): Database {
  const client = new DynamoDBClient({
    endpoint: process.env['DYNAMODB_ENDPOINT']!,
    region: 'us-east-1',
    credentials: { accessKeyId: `cache${randomUUID().replace(/-/g, '')}`, secretAccessKey: 'local' },
  });
  return { client, table: 'schema-cache' };
}

async function createTable({ client, table }: Database): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
  made.push({ client, table });
}

const ttlStatus = async ({ client, table }: Database) =>
  (await client.send(new DescribeTimeToLiveCommand({ TableName: table }))).TimeToLiveDescription?.TimeToLiveStatus;

const enableTtl = ({ client, table }: Database) =>
  client.send(
    new UpdateTimeToLiveCommand({
      TableName: table,
      TimeToLiveSpecification: { AttributeName: 'expires', Enabled: true },
    }),
  );

afterAll(async () => {
  for (const { client, table } of made) await client.send(new DeleteTableCommand({ TableName: table }));
});

describe('DynamoDB Local with its parsed-schema cache', () => {
  it('keeps each database’s schema changes to itself, though the definitions are byte for byte alike', async () => {
    const [a, b, c] = [database(), database(), database()];
    for (const db of [a, b, c]) await createTable(db);

    await enableTtl(a);
    expect(await ttlStatus(a)).toBe('ENABLED');
    expect(await ttlStatus(b)).toBe('DISABLED');
    await enableTtl(b);
    expect(await ttlStatus(b)).toBe('ENABLED');
    expect(await ttlStatus(c)).toBe('DISABLED');

    await c.client.send(
      new UpdateTableCommand({
        TableName: c.table,
        AttributeDefinitions: [{ AttributeName: 'G', AttributeType: 'S' }],
        GlobalSecondaryIndexUpdates: [
          {
            Create: {
              IndexName: 'ByG',
              KeySchema: [{ AttributeName: 'G', KeyType: 'HASH' }],
              Projection: { ProjectionType: 'ALL' },
            },
          },
        ],
      }),
    );
    const indexes = async (db: Database) =>
      (
        (await db.client.send(new DescribeTableCommand({ TableName: db.table }))).Table?.GlobalSecondaryIndexes ?? []
      ).map((i) => i.IndexName);
    expect(await indexes(c)).toEqual(['ByG']);
    expect(await indexes(a)).toEqual([]);

    // Items stay in their database (an emulator that wrote past its schema would mix them).
    await a.client.send(new PutItemCommand({ TableName: a.table, Item: { PK: { S: 'k' }, G: { S: 'g' } } }));
    const fromA = await a.client.send(new GetItemCommand({ TableName: a.table, Key: { PK: { S: 'k' } } }));
    expect(fromA.Item).toEqual({ PK: { S: 'k' }, G: { S: 'g' } });
    const fromB = await b.client.send(new GetItemCommand({ TableName: b.table, Key: { PK: { S: 'k' } } }));
    expect(fromB.Item).toBeUndefined();
  });
});

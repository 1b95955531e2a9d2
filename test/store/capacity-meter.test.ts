import { BatchGetCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { batchWrite } from '../../lib/store/batch.ts';
import { type CapacityMeter, meterCapacity } from '../../lib/store/capacity-meter.ts';
import { db, tableName } from '../../lib/store/client.ts';

// The benches explain a read's cost by the items it went through: this pins what counts as one.
let meter: CapacityMeter;
const PK = 'METER#test';
const sk = (i: number) => `ITEM#${String(i).padStart(2, '0')}`;

beforeAll(async () => {
  await batchWrite(Array.from({ length: 10 }, (_, i) => ({ put: { PK, SK: sk(i), even: i % 2 === 0 } })));
  meter = meterCapacity(db());
});

describe('capacity meter', () => {
  it('counts what a query scanned (filtered-out items too), a get that found its item, and each item of a batch get', async () => {
    meter.reset();
    const query = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk',
        FilterExpression: 'even = :t',
        ExpressionAttributeValues: { ':pk': PK, ':t': true },
      }),
    );
    expect(query.Items).toHaveLength(5);
    expect(meter.itemsRead).toBe(10);
    expect(meter.read).toBeGreaterThan(0);

    await db().send(new GetCommand({ TableName: tableName(), Key: { PK, SK: sk(3) } }));
    await db().send(new GetCommand({ TableName: tableName(), Key: { PK, SK: 'ITEM#missing' } }));
    expect(meter.itemsRead).toBe(11);

    await db().send(
      new BatchGetCommand({
        RequestItems: { [tableName()]: { Keys: [sk(1), sk(2), 'ITEM#missing'].map((SK) => ({ PK, SK })) } },
      }),
    );
    expect(meter.itemsRead).toBe(13);
    expect(meter.write).toBe(0);

    meter.reset();
    expect([meter.read, meter.write, meter.itemsRead]).toEqual([0, 0, 0]);
  });
});

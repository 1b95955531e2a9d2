import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { batchWrite, type WriteRequest } from '../../lib/store/batch.ts';
import { db, tableName } from '../../lib/store/client.ts';

/** BatchWriteItem in chunks against DynamoDB Local: a failed chunk leaves no write of the call still in flight. */
const itemsIn = async (pk: string): Promise<number> => {
  const { Count = 0 } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      Select: 'COUNT',
      ConsistentRead: true,
    }),
  );
  return Count;
};

describe('batchWrite', () => {
  it('writes every item, 25 to a call, several calls at once', async () => {
    const pk = `TEST#batch#${randomUUID()}`;
    await batchWrite(
      Array.from({ length: 120 }, (_, i): WriteRequest => ({ put: { PK: pk, SK: String(i).padStart(4, '0') } })),
    );
    expect(await itemsIn(pk)).toBe(120);
  });

  it('after a chunk fails, throws only once the other calls have settled and starts no more', async () => {
    const pk = `TEST#batch#${randomUUID()}`;
    // An item over DynamoDB's 400 KB limit: its chunk is refused (ValidationException), for real.
    const tooLarge: WriteRequest = { put: { PK: pk, SK: '0000', blob: 'x'.repeat(410 * 1024) } };
    const small = Array.from(
      { length: 199 },
      (_, i): WriteRequest => ({ put: { PK: pk, SK: String(i + 1).padStart(4, '0') } }),
    );
    await expect(batchWrite([tooLarge, ...small], 4)).rejects.toThrow(/size/i);
    const atThrow = await itemsIn(pk);
    // Nothing of the call lands after it has thrown (a retried caller must not be overtaken).
    await new Promise((r) => setTimeout(r, 500));
    expect(await itemsIn(pk)).toBe(atThrow);
    expect(atThrow).toBeLessThan(small.length);
  });
});

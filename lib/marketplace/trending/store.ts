/** DynamoDB access of trending: one page of a day's partition of the Trending index, highest first. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../store/client.ts';
import { templateLists } from '../../store/keys.ts';
import { INDEXES } from '../../store/table.ts';

const index = INDEXES.trending;

/** Index entries of `day` after `startKey`; `nextKey` is undefined once the partition is read to its end. */
export async function readTrendDay(day: string, limit: number, startKey: Record<string, unknown> | undefined) {
  const res = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: index.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': index.partitionKey },
      ExpressionAttributeValues: { ':pk': templateLists.trendDay(day) },
      ScanIndexForward: false,
      Limit: limit,
      ExclusiveStartKey: startKey,
    }),
  );
  const entries = res.Items ?? [];
  /** The 7-day count of the last entry read: no unread entry of this day counts more. */
  const floor = Number(entries.at(-1)?.[index.sortKey] ?? 0);
  return { entries, nextKey: res.LastEvaluatedKey, floor };
}

import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import type { KeyTypes, StartKey } from './cursor.ts';
import type { Key } from './keys.ts';
import type { IndexDefinition } from './table.ts';

export interface IndexPage {
  /** The page's index entries as read (whole items for an ALL index such as GSI1). */
  entries: Record<string, unknown>[];
  keys: Key[];
  hasMore: boolean;
  /** Start key of the page after this one (the index key of its last entry). */
  nextKey?: StartKey;
}

/**
 * One page of a KEYS_ONLY list index, newest/highest first: reads `skip + limit + 1` index entries
 * (the +1 answers has_more) and nothing else, so the cost depends on the page, not on the catalog.
 */
export async function readIndexPage(
  index: IndexDefinition,
  partition: string,
  options: { skip: number; limit: number; startKey?: StartKey; sortKeyAbove?: string | number },
): Promise<IndexPage> {
  const want = options.skip + options.limit + 1;
  const entries: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined = options.startKey;
  const above = options.sortKeyAbove !== undefined;
  do {
    const res = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: index.name,
        KeyConditionExpression: above ? '#pk = :pk AND #sk > :above' : '#pk = :pk',
        ExpressionAttributeNames: { '#pk': index.partitionKey, ...(above ? { '#sk': index.sortKey } : {}) },
        ExpressionAttributeValues: { ':pk': partition, ...(above ? { ':above': options.sortKeyAbove } : {}) },
        ScanIndexForward: false,
        Limit: want - entries.length,
        ExclusiveStartKey: startKey,
      }),
    );
    entries.push(...(res.Items ?? []));
    startKey = res.LastEvaluatedKey;
  } while (startKey && entries.length < want);

  const page = entries.slice(options.skip, options.skip + options.limit);
  const last = page.at(-1);
  const hasMore = entries.length > options.skip + options.limit;
  return {
    entries: page,
    keys: page.map((e) => ({ PK: e['PK'] as string, SK: e['SK'] as string })),
    hasMore,
    ...(hasMore && last ? { nextKey: indexKeyOf(index, last) } : {}),
  };
}

export const indexKeyOf = (index: IndexDefinition, entry: Record<string, unknown>): StartKey => ({
  PK: entry['PK'] as string,
  SK: entry['SK'] as string,
  [index.partitionKey]: entry[index.partitionKey] as string,
  [index.sortKey]: entry[index.sortKey] as string | number,
});

/** The attributes of a start key in `index`, with their DynamoDB types (for decodeCursor). */
export const indexKeyTypes = (index: IndexDefinition): KeyTypes => ({
  PK: 'S',
  SK: 'S',
  [index.partitionKey]: 'S',
  [index.sortKey]: index.sortKeyType ?? 'S',
});

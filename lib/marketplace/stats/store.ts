/** The stats items of one template for the UTC years from `fromYear` to `toYear` (every version): one Query. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../store/client.ts';
import { keys, lifecycleKeys } from '../../store/keys.ts';

export async function readStatsItems(
  templateId: string,
  fromYear: string,
  toYear: string,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': keys.template(templateId).PK,
          ':from': lifecycleKeys.statsYearPrefix(fromYear),
          // '~' sorts after every sortable version, so the last year's items are all in.
          ':to': `${lifecycleKeys.statsYearPrefix(toYear)}~`,
        },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

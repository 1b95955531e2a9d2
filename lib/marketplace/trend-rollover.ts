import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../store/client.ts';
import { keys } from '../store/keys.ts';
import { INDEXES } from '../store/table.ts';
import { buildUpdate } from '../store/update-expression.ts';
import { templateIdOf, templatesInOrder } from './index-page.ts';
import type { TemplateItem } from './template-item.ts';
import { moveToDay, trendPartition, utcDay, windowDays } from './trend.ts';

const PAGE = 100;
const PARALLEL_UPDATES = 8;

/**
 * The daily job behind trending (scheduled shortly after 00:00 UTC): every public template
 * installed in the last 6 days moves from its day's partition to today's, with its exact count
 * for the window ending today. Afterwards the trending read finds the whole window in one
 * partition, in exact order, and reads its top 10 in one round whatever the catalog holds.
 * Without it the read is still right, just dearer: it reads older partitions by upper bounds.
 *
 * Each move is conditional on the template's `trend_day` and visibility being what was read, so
 * an install or a visibility change racing it wins and the move is skipped (the install moved it
 * already). Running it twice, or late, is harmless. Cost: one read and one write per template
 * installed in the window, once a day.
 */
export async function rollTrendWindow(now: number): Promise<{ moved: number; skipped: number }> {
  const today = utcDay(now);
  let moved = 0;
  let skipped = 0;
  for (const day of windowDays(today).slice(1)) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const res = await db().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: INDEXES.trending.name,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': INDEXES.trending.partitionKey },
          ExpressionAttributeValues: { ':pk': trendPartition(day) },
          Limit: PAGE,
          ExclusiveStartKey: startKey,
        }),
      );
      startKey = res.LastEvaluatedKey;
      const ids = (res.Items ?? []).map((i) => templateIdOf({ PK: i['PK'] as string, SK: i['SK'] as string }));
      const items = await templatesInOrder(ids, (t) => t.trend_day === day);
      for (let i = 0; i < items.length; i += PARALLEL_UPDATES) {
        const results = await Promise.all(items.slice(i, i + PARALLEL_UPDATES).map((t) => moveTemplate(t, today)));
        for (const ok of results) ok ? moved++ : skipped++;
      }
    } while (startKey);
  }
  return { moved, skipped };
}

async function moveTemplate(t: TemplateItem, today: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.template(t.id),
        ...buildUpdate(
          { ...moveToDay(t, today, 0), add: { rev: 1 } },
          { condition: '#vis = :vis AND #day = :day', names: { '#vis': 'visibility', '#day': 'trend_day' }, values: { ':vis': t.visibility, ':day': t.trend_day } },
        ),
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

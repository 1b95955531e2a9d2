import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { newTemplateItem } from '../lib/marketplace/templates/template-item.ts';
import { bucketAttribute, utcDay } from '../lib/marketplace/trending/trend.ts';
import { db, tableName } from '../lib/store/client.ts';
import * as keys from '../lib/store/key-builders.ts';
import { listPartitions, templateLists } from '../lib/store/keys.ts';
import { startDailySchedule, untilNextUtc } from '../local/emulators/daily-schedule.ts';

describe('local daily schedule', () => {
  const at = { hour: 0, minute: 5 };
  it('waits for the next 00:05 UTC, today or tomorrow', () => {
    expect(untilNextUtc(Date.UTC(2026, 10, 22, 0, 0), at)).toBe(5 * 60_000);
    expect(untilNextUtc(Date.UTC(2026, 10, 22, 0, 6), at)).toBe(86_400_000 - 60_000);
    expect(untilNextUtc(Date.UTC(2026, 11, 31, 23, 59), at)).toBe(6 * 60_000); // across a year end
  });

  it('never fires twice in the same minute', () => {
    expect(untilNextUtc(Date.UTC(2026, 10, 22, 0, 5), at)).toBe(86_400_000);
  });

  it('runs the trend rollover handler at start, and stop() waits for that run to finish', async () => {
    // A template last installed yesterday: the run at start moves it to today's partition.
    const yesterday = utcDay(Date.now() - 86_400_000);
    const item = newTemplateItem(
      {
        name: 'Scheduled',
        slug: `scheduled-${randomUUID().slice(0, 8)}`,
        description: '',
        category: 'other',
        version: '1.0.0',
        visibility: 'public',
        schema: { variables: [], checks: [] },
      },
      { id: randomUUID(), name: 'Author', verified: false },
      randomUUID(),
      new Date().toISOString(),
    );
    Object.assign(item, { installs: 2, popKey: 2, trend_day: yesterday, trendKey: 2, [bucketAttribute(yesterday)]: 2 });
    Object.assign(item, listPartitions(item).set);
    await db().send(new PutCommand({ TableName: tableName(), Item: item }));

    const schedule = startDailySchedule();
    await schedule.stop();
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.template(item.id), ConsistentRead: true }),
    );
    expect(Item).toMatchObject({
      trend_day: utcDay(Date.now()),
      trendList: templateLists.trendDay(utcDay(Date.now())),
      trendKey: 2,
    });
  });
});

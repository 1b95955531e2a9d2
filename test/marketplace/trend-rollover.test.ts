import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { decorateAwsClients } from '../../lib/aws/client-hooks.ts';
import { installTemplate } from '../../lib/marketplace/installs/install.ts';
import { newTemplateItem, type TemplateItem } from '../../lib/marketplace/templates/template-item.ts';
import { bucketAttribute, installsInWindow } from '../../lib/marketplace/trending/trend.ts';
import { rollTrendWindow } from '../../lib/marketplace/trending/trend-rollover.ts';
import { trendingTemplates } from '../../lib/marketplace/trending/trending.ts';
import { batchWrite } from '../../lib/store/batch.ts';
import { type CapacityMeter, meterCapacity } from '../../lib/store/capacity-meter.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { listPartitions, templateLists } from '../../lib/store/keys.ts';
import { createTestUser, type TestUser } from '../support/lambda.ts';

const NOW = Date.UTC(2026, 10, 22, 0, 10); // 2026-11-22 00:10 UTC: the window is 11-16 … 11-22
const TODAY = '2026-11-22';
/** Templates last installed on 11-19, each with a big bucket on 11-13 that has just left the window. */
const STALE = 130;

let author: TestUser;
let meter: CapacityMeter;

/** Set by a test to hold the next new-day install write (one that sets trend_day) before it is sent. */
let holdNextNewDayWrite: (() => Promise<void>) | undefined;
decorateAwsClients((client, service) => {
  if (service !== 'dynamodb') return;
  (client as DynamoDBClient).middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as {
        TransactItems?: { Update?: { ExpressionAttributeNames?: Record<string, string> } }[];
      };
      const setsDay = input.TransactItems?.some((i) =>
        Object.entries(i.Update?.ExpressionAttributeNames ?? {}).some(([k, v]) => v === 'trend_day' && k !== '#day'),
      );
      if (context.commandName === 'TransactWriteItemsCommand' && setsDay && holdNextNewDayWrite) {
        const hold = holdNextNewDayWrite;
        holdNextNewDayWrite = undefined;
        await hold();
      }
      return next(args);
    },
    { step: 'initialize', name: 'holdNewDayInstall' },
  );
});
const seeded: TemplateItem[] = [];

/** A public template as installs would have left it: buckets, trend_day = last bucket, trendKey = its window then. */
function templateWithInstalls(
  name: string,
  buckets: Record<string, number>,
  installs: number,
  visibility: 'public' | 'private' = 'public',
): TemplateItem {
  const item = newTemplateItem(
    {
      name,
      slug: `${name}-${randomUUID().slice(0, 8)}`,
      description: '',
      category: 'code',
      version: '1.0.0',
      visibility,
      schema: { variables: [], checks: [] },
    },
    { id: author.userId, name: author.name, verified: false },
    randomUUID(),
    '2026-10-01T00:00:00.000Z',
  );
  const days = Object.keys(buckets).sort();
  const lastDay = days.at(-1)!;
  for (const day of days) (item as unknown as Record<string, number>)[bucketAttribute(day)] = buckets[day]!;
  Object.assign(item, { installs, popKey: installs, trend_day: lastDay });
  Object.assign(item, { trendKey: installsInWindow(item, lastDay) }, listPartitions(item).set);
  return item;
}

const stored = async (id: string) =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: keys.template(id), ConsistentRead: true })))
    .Item as TemplateItem & Record<string, unknown>;

/** The 10 highest window counts of the seeded public templates (which of several tied at the cut make the list is not specified). */
const topCounts = (items: TemplateItem[]) =>
  items
    .filter((t) => t.visibility === 'public')
    .map((t) => installsInWindow(t, TODAY))
    .filter((c) => c > 0)
    .sort((a, b) => b - a)
    .slice(0, 10);

beforeAll(async () => {
  author = await createTestUser();
  for (let i = 0; i < STALE; i++)
    seeded.push(templateWithInstalls(`stale-${i}`, { '2026-11-13': 200 - i, '2026-11-19': (i % 17) + 1 }, i));
  seeded.push(
    templateWithInstalls('two-days-ago', { '2026-11-14': 30, '2026-11-18': 5, '2026-11-20': 2 }, 500),
    templateWithInstalls('yesterday', { '2026-11-21': 10 }, 400),
    templateWithInstalls('today', { [TODAY]: 3 }, 300),
    templateWithInstalls('long-ago', { '2026-11-10': 99 }, 200),
    templateWithInstalls('hidden', { '2026-11-21': 50 }, 100, 'private'),
  );
  await batchWrite(seeded.map((t) => ({ put: t as unknown as Record<string, unknown> })));
  meter = meterCapacity(db());
}, 60_000);

describe('daily trend rollover', () => {
  it('moves every public template installed in the last 6 days to today, with its exact count, and leaves the rest', async () => {
    const before = new Map(await Promise.all(seeded.map(async (t) => [t.id, await stored(t.id)] as const)));
    const result = await rollTrendWindow(NOW);
    expect(result).toEqual({ moved: STALE + 2, retired: 0, skipped: 0 });

    for (const t of seeded) {
      const now = await stored(t.id);
      const old = before.get(t.id)!;
      const inWindowBefore = t.visibility === 'public' && t.trend_day! >= '2026-11-16' && t.trend_day !== TODAY;
      if (!inWindowBefore) {
        expect(now, t.name).toEqual(old);
        continue;
      }
      expect(now.trend_day, t.name).toBe(TODAY);
      expect(now.trendKey, t.name).toBe(installsInWindow(t, TODAY));
      expect(now.trendList, t.name).toBe(templateLists.trendDay(TODAY));
      expect(now.rev, t.name).toBe(old.rev + 1);
      expect(
        Object.keys(now).filter((k) => k.startsWith('inst_') && k < bucketAttribute('2026-11-16')),
        t.name,
      ).toEqual([]);
      expect(now.installs, t.name).toBe(old.installs);
    }
    expect((await stored(seeded.find((t) => t.name === 'two-days-ago')!.id)).trendKey).toBe(7); // 5 + 2; the 30 of 11-14 left the window

    // Running again finds nothing left to move.
    expect(await rollTrendWindow(NOW)).toEqual({ moved: 0, retired: 0, skipped: 0 });
  });

  it('after the rollover, trending is the exact top 10 read in one round', async () => {
    meter.reset();
    const top = await trendingTemplates(NOW);
    const exact = new Map(seeded.map((t) => [t.id, installsInWindow(t, TODAY)]));
    expect(top.map((t) => exact.get(t.id))).toEqual(topCounts(seeded));
    // 7 day partitions of 10 keys (six of them empty now) and 10 templates: about 8.5 units.
    expect(meter.read).toBeLessThanOrEqual(9);
  });

  it('an install racing the rollover is counted once, in the right window, whichever runs first', async () => {
    const racers = Array.from({ length: 6 }, (_, i) =>
      templateWithInstalls(`racer-${i}`, { '2026-11-15': 40, '2026-11-20': 4 }, 10),
    );
    await batchWrite(racers.map((t) => ({ put: t as unknown as Record<string, unknown> })));
    const installer = await createTestUser();
    await Promise.all([rollTrendWindow(NOW), ...racers.map((t) => installTemplate(t.id, installer, NOW))]);
    for (const t of racers) {
      const now = await stored(t.id);
      expect(now.installs).toBe(11);
      expect(now.trend_day).toBe(TODAY);
      expect(now.trendKey).toBe(5); // 4 on 11-20 + this install; the 40 of 11-15 left the window
      expect(now[bucketAttribute('2026-11-15')]).toBeUndefined();
    }
  });

  it("an install on the old day (a slower clock) landing between a new-day install's read and its write is kept in trendKey", async () => {
    // Issue 19's hunt: the first install of a new day recomputed trendKey from the buckets it had
    // read, on a condition on the day alone, so an install committed in between was dropped from
    // the key. The interleaving is forced: the new-day write is held (not changed) until the
    // old-day install has committed.
    const before = templateWithInstalls('midnight', { '2026-11-21': 3 }, 3);
    await batchWrite([{ put: before as unknown as Record<string, unknown> }]);
    const [late, early] = await Promise.all([createTestUser(), createTestUser()]);
    let reached!: () => void;
    const held = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    holdNextNewDayWrite = () => {
      reached();
      return released;
    };
    const newDay = installTemplate(before.id, late, Date.UTC(2026, 10, 22, 0, 0, 0));
    await held; // it has read the template (trendKey 3 on 11-21) and built its write
    await installTemplate(before.id, early, Date.UTC(2026, 10, 21, 23, 59, 59)); // commits on the old day: trendKey 4
    release();
    await newDay;
    const after = await stored(before.id);
    expect(after.installs).toBe(5);
    expect(after.trend_day).toBe(TODAY);
    expect(after.trendKey).toBe(installsInWindow(after, TODAY));
    expect(after.trendKey).toBe(5);
  });

  it('day after day, moves a template until its installs leave the window, then retires it from the index', async () => {
    const day = (n: number) => NOW + n * 86_400_000;
    const once = templateWithInstalls('installed-once', { '2026-11-22': 1 }, 1);
    await batchWrite([{ put: once as unknown as Record<string, unknown> }]);
    // 11-23 … 11-28: still in the window (11-22 is in it), moved each day.
    for (let n = 1; n <= 6; n++) {
      await rollTrendWindow(day(n));
      expect(await stored(once.id)).toMatchObject({
        trendList: templateLists.trendDay(`2026-11-${22 + n}`),
        trendKey: 1,
      });
    }
    // 11-29: 11-22 left the window; the template leaves the index and nothing is left to move the day after.
    const retiring = await rollTrendWindow(day(7));
    expect(retiring.retired).toBeGreaterThanOrEqual(1);
    const retired = await stored(once.id);
    expect(retired.trendList).toBeUndefined();
    expect(retired.trendKey).toBe(0);
    expect(retired.trend_day).toBe('2026-11-28');
    expect(Object.keys(retired).filter((k) => k.startsWith('inst_'))).toEqual([]);
    expect(await rollTrendWindow(day(8))).toEqual({ moved: 0, retired: 0, skipped: 0 });
    // Its next install puts it back, in that day's partition, counting 1.
    await installTemplate(once.id, await createTestUser(), day(8));
    expect(await stored(once.id)).toMatchObject({
      trendList: templateLists.trendDay('2026-11-30'),
      trend_day: '2026-11-30',
      trendKey: 1,
    });
    expect((await trendingTemplates(day(8))).map((t) => t.id)).toContain(once.id);
  });
});

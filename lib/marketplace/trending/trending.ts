import { isListed, templateIdOf } from '../../store/keys.ts';
import { templatesInOrder } from '../templates/store.ts';
import type { TemplateItem } from '../templates/template-item.ts';
import { readTrendDay } from './store.ts';
import { installsInWindow, utcDay, windowDays } from './trend.ts';

const PAGE = 10;
const MAX_ROUNDS = 5;

interface DayCursor {
  day: string;
  startKey?: Record<string, unknown>;
  done: boolean;
  /** trendKey of the last entry read: no unread entry of this day can count more. */
  floor: number;
}

/**
 * The most installed public templates of the last 7 UTC days (today included). A template sits
 * in the partition of the day of its last install, with trendKey = installs in the 7 days ending
 * then; that is an upper bound of its count now. So: read the top of the 7 day partitions, count
 * exactly from the buckets on the items, and read further only in a partition whose next entries
 * could still beat the current 10th place. Typically one round: 7 queries of 10 keys.
 */
export async function trendingTemplates(now: number, limit = 10): Promise<TemplateItem[]> {
  const today = utcDay(now);
  const days: DayCursor[] = windowDays(today).map((day) => ({ day, done: false, floor: Number.POSITIVE_INFINITY }));
  const counted = new Map<string, { item: TemplateItem; count: number }>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const threshold = nthBest(counted, limit);
    const toRead = days.filter((d) => !d.done && d.floor > threshold);
    if (toRead.length === 0) break;
    const ids = (await Promise.all(toRead.map(readDayPage))).flat().filter((id) => !counted.has(id));
    for (const item of await templatesInOrder(ids, isListed)) {
      counted.set(item.id, { item, count: installsInWindow(item, today) });
    }
  }
  return [...counted.values()]
    .filter((c) => c.count > 0)
    .sort((a, b) => b.count - a.count || b.item.installs - a.item.installs || a.item.id.localeCompare(b.item.id))
    .slice(0, limit)
    .map((c) => c.item);
}

function nthBest(counted: Map<string, { count: number }>, n: number): number {
  const counts = [...counted.values()].map((c) => c.count).sort((a, b) => b - a);
  return counts.length >= n ? counts[n - 1]! : 0;
}

async function readDayPage(cursor: DayCursor): Promise<string[]> {
  const { entries, nextKey, floor } = await readTrendDay(cursor.day, PAGE, cursor.startKey);
  cursor.startKey = nextKey;
  cursor.done = !nextKey;
  cursor.floor = floor;
  return entries.map((i) => templateIdOf({ PK: i['PK'] as string, SK: i['SK'] as string }));
}

/**
 * The 7-day install window behind "trending". Installs are counted per UTC day in top-level
 * attributes of the template item (`inst_20261122`), which `ADD` can bump inside the install
 * transaction; buckets older than the window are removed when a template's first install of a
 * new day moves its `trendKey` forward, so an item carries at most 8 of them.
 */
import { isListed, templateLists } from '../../store/keys.ts';
import { INDEXES } from '../../store/table.ts';
export const TREND_WINDOW_DAYS = 7;
const BUCKET_PREFIX = 'inst_';
const DAY_MS = 86_400_000;

/** 'YYYY-MM-DD' in UTC. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export const bucketAttribute = (day: string): string => BUCKET_PREFIX + day.replaceAll('-', '');

/** The window's days, newest first: `today` and the 6 before it. */
export function windowDays(today: string): string[] {
  const start = Date.parse(`${today}T00:00:00.000Z`);
  return Array.from({ length: TREND_WINDOW_DAYS }, (_, i) => utcDay(start - i * DAY_MS));
}

export function installsInWindow(item: object, today: string): number {
  const buckets = item as Record<string, unknown>;
  return windowDays(today).reduce((sum, day) => sum + Number(buckets[bucketAttribute(day)] ?? 0), 0);
}

/** Bucket attributes of the item that lie outside the window ending `today`. */
export function bucketsOutsideWindow(item: object, today: string): string[] {
  const inside = new Set(windowDays(today).map(bucketAttribute));
  return Object.keys(item).filter((k) => k.startsWith(BUCKET_PREFIX) && !inside.has(k));
}

/**
 * What moves a template to `today`'s trending partition: its exact count for the window ending
 * today (plus `installingNow`), today's partition while public, and the buckets that left the
 * window removed. The install of a new day and the daily rollover both write this, each adding
 * its own counters, on the condition that `trend_day` is still the one they read.
 */
export function moveToDay(
  t: { visibility: string; hidden?: boolean; all_yanked?: boolean; trend_day?: string },
  today: string,
  installingNow: 0 | 1,
) {
  const set: Record<string, unknown> = { trend_day: today, trendKey: installsInWindow(t, today) + installingNow };
  if (isListed(t)) set[INDEXES.trending.partitionKey] = templateLists.trendDay(today);
  return { set, remove: bucketsOutsideWindow(t, today) };
}

/**
 * Where a day's counts live in the stats items: one item per template, UTC year and version, one
 * attribute per counter and day of the year (`i042` = installs on 11 February). A window of up to
 * 366 days then spans at most two years, so reading it costs the same few items whatever its length.
 */
import { sortableVersion } from '../templates/version.ts';

/** The counters a day has, by attribute letter. */
export const COUNTERS = { installs: 'i', contracts_created: 'c', reviews: 'r', rating_sum: 's' } as const;
export type Counter = keyof typeof COUNTERS;

const DAY_MS = 86_400_000;

/** "2026-02-11" → { year: "2026", day: "042" } (UTC). */
export function daySlot(date: string): { year: string; day: string } {
  const year = date.slice(0, 4);
  const dayOfYear = Math.floor((Date.parse(`${date}T00:00:00Z`) - Date.parse(`${year}-01-01T00:00:00Z`)) / DAY_MS) + 1;
  return { year, day: String(dayOfYear).padStart(3, '0') };
}

/** The UTC date of an instant (ms or ISO string). */
export const utcDate = (at: number | string): string => new Date(at).toISOString().slice(0, 10);

/** Whether an attribute of a stats item is a day's counter. */
export const isSlotAttribute = (name: string): boolean =>
  name.length === 4 && (Object.values(COUNTERS) as string[]).includes(name[0]!) && /^\d{3}$/.test(name.slice(1));

/** The attribute of one counter on one day. */
export const slotAttribute = (counter: Counter, day: string): string => `${COUNTERS[counter]}${day}`;

/** Every UTC date from `from` to `to`, both included. */
export function datesBetween(from: string, to: string): string[] {
  const dates: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) dates.push(utcDate(t));
  return dates;
}

export const statsVersionKey = sortableVersion;

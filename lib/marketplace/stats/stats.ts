/**
 * GET /templates/:id/stats (author only): installs, contracts created, reviews and the average
 * rating per UTC day, in total and per version. The counts were added to their day's slot as they
 * happened (count.ts), so the read is one Query of the window's years' items, whatever its length.
 */
import type { Caller } from '../../core/caller.ts';
import { authoredTemplate } from '../templates/find-template.ts';
import { ratingAverage } from '../templates/template-item.ts';
import { compareVersions } from '../templates/version.ts';
import { type Counter, datesBetween, daySlot, isSlotAttribute, slotAttribute } from './day-slots.ts';
import type { StatsQuery } from './schemas.ts';
import { readStatsItems } from './store.ts';

export interface DayCounts {
  installs: number;
  contracts_created: number;
  reviews: number;
  rating_avg: number;
}

const COUNTED: readonly Counter[] = ['installs', 'contracts_created', 'reviews', 'rating_sum'];

type Sums = Record<Counter, number>;
const zero = (): Sums => ({ installs: 0, contracts_created: 0, reviews: 0, rating_sum: 0 });
const shown = (s: Sums): DayCounts => ({
  installs: s.installs,
  contracts_created: s.contracts_created,
  reviews: s.reviews,
  rating_avg: ratingAverage(s.rating_sum, s.reviews),
});
const addInto = (into: Sums, from: Sums) => {
  for (const c of COUNTED) into[c] += from[c];
};

export async function templateStats(idOrSlug: string, query: StatsQuery, caller: Caller) {
  const template = await authoredTemplate(idOrSlug, caller);
  const items = mergeShards(await readStatsItems(template.id, query.from.slice(0, 4), query.to.slice(0, 4)));
  const totals = zero();
  const days = datesBetween(query.from, query.to).map((date) => {
    const { year, day } = daySlot(date);
    const sums = zero();
    const versions: ({ version: string } & DayCounts)[] = [];
    for (const item of items) {
      if (item['year'] !== year) continue;
      const v = zero();
      for (const c of COUNTED) v[c] = Number(item[slotAttribute(c, day)] ?? 0);
      if (COUNTED.every((c) => v[c] === 0)) continue;
      addInto(sums, v);
      versions.push({ version: item['version'] as string, ...shown(v) });
    }
    addInto(totals, sums);
    versions.sort((a, b) => compareVersions(b.version, a.version));
    return { date, ...shown(sums), versions };
  });
  return {
    template_id: template.id,
    from: query.from,
    to: query.to,
    granularity: query.granularity,
    totals: shown(totals),
    days,
  };
}

/** One item per year and version: the shards' numbers added up (count.ts). */
function mergeShards(items: Record<string, unknown>[]): Record<string, unknown>[] {
  const merged = new Map<string, Record<string, unknown>>();
  for (const item of items) {
    const at = `${item['year']}|${item['version']}`;
    const into = merged.get(at);
    if (!into) {
      merged.set(at, { ...item });
      continue;
    }
    for (const [name, value] of Object.entries(item)) {
      if (typeof value === 'number' && isSlotAttribute(name)) into[name] = Number(into[name] ?? 0) + value;
    }
  }
  return [...merged.values()];
}

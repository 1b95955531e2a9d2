/**
 * The stats write that rides along with what it counts: an install, a contract, a review each add
 * to their day's slot in the same transaction as their own counters, so the stats are as exact as
 * the totals (ADD, no read) and a cancelled transaction counts nothing.
 */
import { tableName } from '../../store/client.ts';
import { ENTITY, lifecycleKeys } from '../../store/keys.ts';
import type { TransactItem } from '../../store/transact.ts';
import { buildUpdate } from '../../store/update-expression.ts';
import { type Counter, daySlot, slotAttribute, statsVersionKey, utcDate } from './day-slots.ts';

/**
 * Shards of one template's year and version: every install, contract and review of a popular
 * template adds to its stats item in its own transaction, so one item would be a second hot spot
 * beside the template item (measured: 50 concurrent reviews took a third longer with one item).
 * A writer picks a shard at random; the read sums them (a window still reads the same items).
 */
export const STATS_SHARDS = 8;

export function countStats(
  templateId: string,
  version: string,
  at: number | string,
  add: Partial<Record<Counter, number>>,
): TransactItem {
  const { year, day } = daySlot(utcDate(at));
  const update = buildUpdate({
    set: { entity: ENTITY.templateStats, template_id: templateId, version, year },
    add: Object.fromEntries(Object.entries(add).map(([counter, n]) => [slotAttribute(counter as Counter, day), n])),
  });
  return {
    Update: {
      TableName: tableName(),
      Key: lifecycleKeys.stats(templateId, year, statsVersionKey(version), Math.floor(Math.random() * STATS_SHARDS)),
      ...update,
    },
  };
}

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
    Update: { TableName: tableName(), Key: lifecycleKeys.stats(templateId, year, statsVersionKey(version)), ...update },
  };
}

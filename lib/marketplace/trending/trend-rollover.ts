import type { StartKey } from '../../store/cursor.ts';
import { templateIdOf, templateLists } from '../../store/keys.ts';
import { INDEXES } from '../../store/table.ts';
import { buildUpdate } from '../../store/update-expression.ts';
import { templateListPage, templatesInOrder, updateTemplateIf } from '../templates/store.ts';
import type { TemplateItem } from '../templates/template-item.ts';
import { bucketsOutsideWindow, installsInWindow, moveToDay, utcDay, windowDays } from './trend.ts';

const PAGE = 100;
const PARALLEL_UPDATES = 8;

/**
 * The daily job behind trending (scheduled shortly after 00:00 UTC): every public template in the
 * partitions of the 6 previous days moves to today's, with its exact count for the window ending
 * today; one whose count is now 0 (its installs all left the window) leaves the index instead, so
 * the job's work is the templates installed in the last week, never the whole install history. Afterwards the trending read finds the whole window in one
 * partition, in exact order, and reads its top 10 in one round whatever the catalog holds.
 * Without it the read is still right, just dearer: it reads older partitions by upper bounds.
 *
 * Each move is conditional on the template's `trend_day`, `trendKey` and visibility being what was
 * read, so an install or a visibility change racing it wins and the move is skipped (the install
 * moved it already). Running it twice, or late, is harmless. Cost: one read and one update per
 * template installed in the last week, once a day.
 */
export async function rollTrendWindow(now: number): Promise<{ moved: number; retired: number; skipped: number }> {
  const today = utcDay(now);
  const counts = { moved: 0, retired: 0, skipped: 0 };
  for (const day of windowDays(today).slice(1)) {
    let startKey: StartKey | undefined;
    do {
      const page = await templateListPage(INDEXES.trending, templateLists.trendDay(day), {
        skip: 0,
        limit: PAGE,
        ...(startKey ? { startKey } : {}),
      });
      startKey = page.nextKey;
      const ids = page.keys.map(templateIdOf);
      const items = await templatesInOrder(ids, (t) => t.trend_day === day);
      for (let i = 0; i < items.length; i += PARALLEL_UPDATES) {
        const results = await Promise.all(items.slice(i, i + PARALLEL_UPDATES).map((t) => rollTemplate(t, today)));
        for (const r of results) counts[r]++;
      }
    } while (startKey);
  }
  return counts;
}

async function rollTemplate(t: TemplateItem, today: string): Promise<'moved' | 'retired' | 'skipped'> {
  const retire = installsInWindow(t, today) === 0;
  // A retired template keeps its trend_day (long past): its next install takes the new-day path and puts it back.
  const parts = retire
    ? { set: { trendKey: 0 }, remove: [INDEXES.trending.partitionKey, ...bucketsOutsideWindow(t, today)] }
    : moveToDay(t, today, 0);
  const done = await updateTemplateIf(
    t.id,
    buildUpdate(
      { ...parts, add: { rev: 1 } },
      {
        condition: '#vis = :vis AND #day = :day AND #key = :key',
        names: { '#vis': 'visibility', '#day': 'trend_day', '#key': 'trendKey' },
        values: { ':vis': t.visibility, ':day': t.trend_day, ':key': t.trendKey },
      },
    ),
  );
  if (!done) return 'skipped';
  return retire ? 'retired' : 'moved';
}

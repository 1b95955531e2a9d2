/** Query of GET /templates/:id/stats. Strict: unknown parameters are a 400. */
import * as z from '../../zod.ts';

/** A window spans at most this many days: at most two UTC years of stats items (day-slots.ts). */
export const MAX_STATS_DAYS = 366;
const DATE = /^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/;

const date = z.string().check(
  z.regex(DATE, 'Expected a date, YYYY-MM-DD.'),
  z.refine((d) => new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), 'Not a calendar date.'),
);

export const statsQuery = z
  .strictObject({
    from: date,
    to: date,
    granularity: z._default(z.enum(['day']), 'day'),
  })
  .check(
    z.refine((q) => q.from <= q.to, { message: 'Must not be after to.', path: ['from'] }),
    z.refine((q) => Date.parse(q.to) - Date.parse(q.from) < MAX_STATS_DAYS * 86_400_000, {
      message: `The window may span at most ${MAX_STATS_DAYS} days.`,
      path: ['to'],
    }),
  );
export type StatsQuery = z.output<typeof statsQuery>;

/** The stats answer of the API, declared once (see lib/marketplace/templates/answer.ts). */
import { z } from 'zod';
import { count, uuid } from '../../core/answer-fields.ts';

const dayCounts = {
  installs: count,
  contracts_created: count,
  reviews: count,
  rating_avg: z.number().min(0).max(5).describe('Average of the reviews of the day (2 decimals); 0 without reviews.'),
};
export const templateStatsSeriesAnswer = z.strictObject({
  template_id: uuid,
  from: z.iso.date(),
  to: z.iso.date(),
  granularity: z.literal('day'),
  totals: z.strictObject(dayCounts),
  days: z
    .array(
      z.strictObject({
        date: z.iso.date(),
        ...dayCounts,
        versions: z
          .array(z.strictObject({ version: z.string(), ...dayCounts }))
          .describe('The versions with anything counted that day, newest first.'),
      }),
    )
    .describe('Every UTC day of the window, oldest first.'),
});

export type TemplateStatsSeries = z.infer<typeof templateStatsSeriesAnswer>;

/** The review answers of the API, declared once (see lib/marketplace/templates/answer.ts). */
import { z } from 'zod';
import { timestamp, uuid } from '../../core/answer-fields.ts';
import { paginationAnswer } from '../templates/answer.ts';

export const reviewAnswer = z.strictObject({
  id: uuid,
  user: z.strictObject({ id: uuid, name: z.string() }),
  rating: z.int().min(1).max(5),
  title: z.string(),
  comment: z.string(),
  created_at: timestamp,
  hidden: z
    .literal(true)
    .optional()
    .describe(
      'Only on a review an operator hid: shown to its writer and operators alone, on the first page of the list, and not in the rating.',
    ),
});
export const reviewPageAnswer = z.strictObject({ data: z.array(reviewAnswer), pagination: paginationAnswer });

export type Review = z.infer<typeof reviewAnswer>;
export type ReviewPage = z.infer<typeof reviewPageAnswer>;

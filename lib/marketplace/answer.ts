/** The answer that reads several rooms: a template with its newest reviews (template-details.ts). */
import { z } from 'zod';
import { reviewAnswer } from './reviews/answer.ts';
import { templateShape } from './templates/answer.ts';

export const templateDetailsAnswer = z.strictObject({ ...templateShape, reviews: z.array(reviewAnswer) });

export type TemplateDetails = z.infer<typeof templateDetailsAnswer>;

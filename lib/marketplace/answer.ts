/** The answer that reads several rooms: a template with its newest reviews (template-details.ts). */
import { z } from 'zod';
import { reviewAnswer } from './reviews/answer.ts';
import { templateShape } from './templates/answer.ts';

/** What the caller has done with the template: what a page shows beside Install and the review form. */
export const templateViewerAnswer = z
  .strictObject({
    author: z.boolean().describe("The caller's account published it (nobody reviews their own template)."),
    installed: z.boolean().describe("It is installed in the caller's workspace."),
    reviewed: z.boolean().describe('The caller has reviewed it (one review per user).'),
  })
  .describe('The caller and this template.');

export const templateDetailsAnswer = z.strictObject({
  ...templateShape,
  reviews: z.array(reviewAnswer),
  viewer: templateViewerAnswer,
});

export type TemplateDetails = z.infer<typeof templateDetailsAnswer>;

/** The install answers of the API, declared once (see lib/marketplace/templates/answer.ts). */
import { z } from 'zod';
import { cursorPageOf, timestamp, uuid } from '../../core/answer-fields.ts';
import { templateSummaryAnswer } from '../templates/answer.ts';

export const installationAnswer = z.strictObject({
  template_id: uuid,
  workspace_id: uuid,
  version: z.string(),
  installed_at: timestamp,
});
export const installedPageAnswer = cursorPageOf(templateSummaryAnswer);

export type Installation = z.infer<typeof installationAnswer>;

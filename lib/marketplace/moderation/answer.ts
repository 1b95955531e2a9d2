/** The moderation answers of the API, declared once (see lib/marketplace/templates/answer.ts). */
import { z } from 'zod';
import { count, cursorPageOf, timestamp, uuid } from '../../core/answer-fields.ts';
import { MODERATION_ACTIONS, REPORT_REASONS } from './schemas.ts';

export const reportAnswer = z.strictObject({
  id: uuid,
  template_id: uuid,
  reviewer_id: uuid.nullable().describe('Set when the report names the review this user wrote of the template.'),
  reporter_id: uuid,
  reason: z.enum(REPORT_REASONS),
  text: z.string(),
  status: z.enum(['open', 'closed']),
  created_at: timestamp,
});
export const reportPageAnswer = cursorPageOf(reportAnswer);
export const moderationActionAnswer = z.strictObject({
  id: uuid,
  action: z.enum(MODERATION_ACTIONS),
  operator: z.strictObject({ id: uuid, name: z.string() }),
  template_id: uuid.nullable(),
  reviewer_id: uuid.nullable(),
  author_id: uuid.nullable(),
  version: z.string().nullable().describe('The version released or rejected (release and reject of a later version).'),
  reason: z.string(),
  changed: z.boolean().describe('False when the item already was as asked (the action is recorded all the same).'),
  reports_closed: count.describe('Open reports of the item this action closed (hide and dismiss).'),
  created_at: timestamp,
});
export const moderationActionPageAnswer = cursorPageOf(moderationActionAnswer);

export type Report = z.infer<typeof reportAnswer>;
export type ModerationAction = z.infer<typeof moderationActionAnswer>;

/** The lifecycle answers of the API and its template events, declared once (see lib/marketplace/templates/answer.ts). */
import { z } from 'zod';
import { timestamp } from '../../core/answer-fields.ts';
import { EVENT_TYPES } from '../../core/event-types.ts';
import { ID_PATTERN } from '../../core/ids.ts';
import { eventEnvelope } from '../../events/feed/answer.ts';
import { templateEventData, templatePublishedData } from '../../events/feed/event-data.ts';
import { templateVersionShape } from '../templates/answer.ts';

export const versionChangedAnswer = z.strictObject({
  ...templateVersionShape,
  current_version: z
    .string()
    .nullable()
    .describe(
      "The template's current version after the change (the newest not yanked); null when every version is yanked.",
    ),
});
export const eventAgentsAnswer = z.strictObject({
  agent_ids: z.array(z.string().regex(ID_PATTERN.agt)),
  updated_at: timestamp.nullable().describe('Null until the workspace first chose.'),
});
/** The `data` of a template.version.* event (notices.ts sends it to the agents a workspace chose). */
export const templateEventDataAnswer = templateEventData;

export type VersionChanged = z.infer<typeof versionChangedAnswer>;
export type EventAgents = z.infer<typeof eventAgentsAnswer>;

/** The template kinds of EVENT_TYPES (the rest are contract kinds). */
export const TEMPLATE_EVENT_TYPES = EVENT_TYPES.filter((t) => t.startsWith('template.'));
/** The `data` of template.version.published (upgrade-on-publish.ts). */
export const templatePublishedDataAnswer = templatePublishedData;
const NOTICE_TYPES = TEMPLATE_EVENT_TYPES.filter((t) => t !== 'template.version.published');
/** Any template event (the union's members in the document). */
export const templateEventAnswer = z.union([
  z.strictObject({ ...eventEnvelope, type: z.enum(NOTICE_TYPES), data: templateEventDataAnswer }),
  z.strictObject({
    ...eventEnvelope,
    type: z.literal('template.version.published'),
    data: templatePublishedDataAnswer,
  }),
]);
/** One template kind with its own `type` (the document's `webhooks`). */
export const templateEventOf = (type: (typeof EVENT_TYPES)[number]) =>
  z.strictObject({
    ...eventEnvelope,
    type: z.literal(type),
    data: type === 'template.version.published' ? templatePublishedDataAnswer : templateEventDataAnswer,
  });

/** The install answers of the API, declared once (see lib/marketplace/templates/answer.ts). */
import { z } from 'zod';
import { cursorPageOf, timestamp, uuid } from '../../core/answer-fields.ts';
import { templateSummaryAnswer } from '../templates/answer.ts';
import { schemaDiffAnswer } from '../templates/diff-answer.ts';
import { UPDATE_POLICIES } from '../templates/update-policy.ts';

export const installationAnswer = z.strictObject({
  template_id: uuid,
  workspace_id: uuid,
  version: z.string().describe("The version the workspace's contracts are made from (unless a contract names one)."),
  policy: z
    .enum(UPDATE_POLICIES)
    .describe('Which new versions move the install on publish, as npm reads `=`, `~` and `^` ranges of `version`.'),
  installed_at: timestamp,
});

export const installDriftAnswer = z.strictObject({
  version: z.string(),
  policy: z.enum(UPDATE_POLICIES),
  installed_at: timestamp,
  version_yanked: z
    .boolean()
    .describe(
      'The installed version was yanked since: contracts are still made from it (as a lockfile keeps a yanked crate), upgrades never target it.',
    ),
  newest_allowed: z
    .string()
    .nullable()
    .describe(
      'The newest version, not yanked, that the policy allows from `version` (null when none is: a pinned version since yanked).',
    ),
  newest: z.string().describe("The template's newest version overall (its current version)."),
  behind: z.boolean().describe('`version` is older than `newest` (drift).'),
});

export const installedEntryAnswer = z.strictObject({
  ...templateSummaryAnswer.shape,
  installation: installDriftAnswer,
});
export const installedPageAnswer = cursorPageOf(installedEntryAnswer);

export const upgradedAnswer = z.strictObject({
  installation: installationAnswer,
  from_version: z.string(),
  changed: z.boolean().describe('false when the install already was at that version and policy.'),
  diff: schemaDiffAnswer,
});

export type Installation = z.infer<typeof installationAnswer>;
export type InstallDrift = z.infer<typeof installDriftAnswer>;
export type InstalledEntry = z.infer<typeof installedEntryAnswer>;
export type Upgraded = z.infer<typeof upgradedAnswer>;

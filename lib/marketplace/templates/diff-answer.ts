/** The computed schema diff (schema-diff.ts) as the API answers it, declared once (see answer.ts). */
import { z } from 'zod';

const elementChange = z.strictObject({
  name: z.string().describe('The variable name or check id.'),
  fields: z.array(z.string()).describe('Which of its fields differ.'),
  breaking: z.boolean(),
});
const side = z.strictObject({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(elementChange),
});

export const schemaDiffAnswer = z.strictObject({
  variables: side,
  checks: side,
  breaking: z
    .boolean()
    .describe(
      'Computed: a required variable without a default added (or made so), a variable removed or its type changed, an enum value taken away, or a check removed.',
    ),
  breaking_reasons: z.array(z.string()),
});

export const versionDiffAnswer = z.strictObject({
  template_id: z.string(),
  from: z.string(),
  to: z.string(),
  summary: z.string().describe('One line: counts per side, and "(breaking)" when it is.'),
  changelog: z
    .array(z.strictObject({ version: z.string(), changelog: z.string() }))
    .describe('The changelogs of the versions after `from` up to `to`, newest first (at most 100).'),
  diff: schemaDiffAnswer,
});
export type VersionDiff = z.infer<typeof versionDiffAnswer>;

/**
 * The template answers of the API (lists, one template, the featured page, the categories), declared
 * once: lib/http/openapi/schemas.ts names them in the OpenAPI document, and the service's types are
 * inferred from them (imported as types only: no function bundles this module).
 */
import { z } from 'zod';
import { count, timestamp, uuid } from '../../core/answer-fields.ts';
import { CATEGORIES, VISIBILITIES } from './categories.ts';
import { templateSchema } from './template-schema.ts';

export const categoryAnswer = z.enum(CATEGORIES);
export const visibilityAnswer = z.enum(VISIBILITIES);
export const authorAnswer = z.strictObject({ id: uuid, name: z.string(), verified: z.boolean() });
export const templateStatsAnswer = z.strictObject({
  installs: count,
  rating_avg: z.number().min(0).max(5),
  rating_count: count,
  contracts_created: count,
});

const summaryShape = {
  id: uuid,
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  category: categoryAnswer,
  author: authorAnswer,
  version: z.string(),
  stats: templateStatsAnswer,
  visibility: visibilityAnswer,
  deprecated: z
    .string()
    .nullable()
    .describe("The current version's deprecation message; null when it is not deprecated."),
  yanked: z.boolean().describe('Every version is yanked: no new installs or contracts; seen by its author only.'),
  hidden: z.boolean().describe('Hidden by an operator: seen by its author and operators only.'),
  created_at: timestamp,
  updated_at: timestamp,
};
export const templateSummaryAnswer = z.strictObject(summaryShape);

/** The publish gate's hold (lib/marketplace/templates/gate.ts): shown to the author and operators only. */
export const quarantineAnswer = z
  .strictObject({
    status: z.enum(['quarantined', 'rejected']).describe('`quarantined` until an operator releases or rejects it.'),
    findings: z.array(
      z.strictObject({
        kind: z.enum(['secret', 'impersonation', 'reference']),
        path: z.string().describe('Where in the published body, as validation details name it.'),
        reason: z.string(),
      }),
    ),
    at: timestamp,
  })
  .nullable();

/** A version as the API shows it; lifecycle's answer to a change adds the current version. */
export const templateVersionShape = {
  version: z.string(),
  changelog: z.string(),
  created_at: timestamp,
  deprecated: z
    .strictObject({ message: z.string(), at: timestamp })
    .nullable()
    .describe('Set by the author: still installable, shown as deprecated.'),
  yanked_at: timestamp.nullable().describe('Set by the author: no new installs or contracts of this version.'),
  quarantine: quarantineAnswer.describe(
    'Held by the publish gate: not current, not installable, seen by its author and operators only (null when it is not).',
  ),
};
export const templateVersionAnswer = z.strictObject(templateVersionShape);

/** A template in full; the details page adds its newest reviews (lib/marketplace/answer.ts). */
export const templateShape = {
  ...summaryShape,
  schema: templateSchema,
  versions: z.array(templateVersionAnswer),
  quarantine: quarantineAnswer.describe(
    'The first version was held by the publish gate: the template is hidden (seen by its author and operators only) until an operator releases it.',
  ),
};
export const templateAnswer = z.strictObject(templateShape);

export const paginationAnswer = z.strictObject({
  limit: z.int(),
  offset: count,
  total: count.describe('Exact for every list and one-word search; an upper bound when total_exact is false.'),
  total_exact: z
    .literal(false)
    .optional()
    .describe(
      'Present (false) only for a multi-word search cut short by its budget: total is then the count of its rarest word.',
    ),
  has_more: z.boolean(),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
});
export const templatePageAnswer = z.strictObject({
  data: z.array(templateSummaryAnswer),
  pagination: paginationAnswer,
});
export const featuredTemplatesAnswer = z.strictObject({
  featured: z.array(templateSummaryAnswer),
  trending: z.array(templateSummaryAnswer),
  new: z.array(templateSummaryAnswer),
  top_rated: z.array(templateSummaryAnswer),
});
export const categoryListAnswer = z.strictObject({ data: z.array(z.strictObject({ name: categoryAnswer, count })) });

export type Author = z.infer<typeof authorAnswer>;
export type TemplateSummary = z.infer<typeof templateSummaryAnswer>;
export type VersionEntry = z.infer<typeof templateVersionAnswer>;
export type Quarantine = NonNullable<z.infer<typeof quarantineAnswer>>;
export type Template = z.infer<typeof templateAnswer>;
export type Pagination = z.infer<typeof paginationAnswer>;
export type TemplatePage = z.infer<typeof templatePageAnswer>;
export type FeaturedTemplates = z.infer<typeof featuredTemplatesAnswer>;
export type CategoryList = z.infer<typeof categoryListAnswer>;

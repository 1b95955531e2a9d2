/** The zod schemas of the marketplace's bodies and query strings (strict: unknown fields are 400). */

import { isTemplateIdOrSlug, SLUG_PATTERN, UUID_PATTERN } from '../core/ids.ts';
import * as z from '../zod.ts';
import { CATEGORIES, VISIBILITIES } from './templates/categories.ts';
import { templateSchema } from './templates/template-schema.ts';
import { UPDATE_POLICIES } from './templates/update-policy.ts';
import { VERSION_PATTERN } from './templates/version.ts';

/** Deep paging goes through `cursor`; an offset this large would read this many index keys. */
export const MAX_OFFSET = 10_000;
/**
 * A search skips by reading: every match before the page is a template item read and held, so
 * offset 10,000 meant up to 20,202 item reads (10,000+ read units) and 10,101 items in memory for
 * one request. Deeper search pages go through `cursor`, whose cost does not grow with depth.
 */
export const MAX_SEARCH_OFFSET = 1_000;

const slug = z.string().check(
  z.minLength(3),
  z.maxLength(64),
  z.regex(SLUG_PATTERN, 'Must match ^[a-z0-9]+(-[a-z0-9]+)*$.'),
  // `/templates/:id` takes an id or a slug, so a slug must never be mistaken for an id.
  z.refine((s) => !UUID_PATTERN.test(s), 'Must not have the shape of a UUID.'),
);
const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(100));
const description = z.string().check(z.maxLength(2000));
const version = z.string().check(z.regex(VERSION_PATTERN, 'Must be MAJOR.MINOR.PATCH, e.g. 1.0.0 (no leading zeros).'));

export const publishBody = z.strictObject({
  name,
  slug,
  description: z._default(description, ''),
  category: z.enum(CATEGORIES),
  version,
  schema: templateSchema,
  visibility: z._default(z.enum(VISIBILITIES), 'public'),
});
export type PublishInput = z.output<typeof publishBody>;

export const updateBody = z
  .strictObject({
    name: z.optional(name),
    description: z.optional(description),
    category: z.optional(z.enum(CATEGORIES)),
    visibility: z.optional(z.enum(VISIBILITIES)),
  })
  .check(
    z.refine(
      (b) => Object.values(b).some((v) => v !== undefined),
      'Send at least one of name, description, category, visibility.',
    ),
  );
export type UpdateInput = z.output<typeof updateBody>;

export const versionBody = z.strictObject({
  version,
  schema: templateSchema,
  changelog: z.optional(z.string().check(z.maxLength(2000))),
});
export type VersionInput = z.output<typeof versionBody>;

export const reviewBody = z.strictObject({
  rating: z.number().check(z.int(), z.minimum(1), z.maximum(5)),
  title: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
  comment: z._default(z.string().check(z.maxLength(2000)), ''),
});
export type ReviewInput = z.output<typeof reviewBody>;

/** `:id` is a UUID or a slug; anything else cannot name a template (the HTTP stack answers 404). */
export const templateIdParams = z.object({ id: z.string().check(z.refine(isTemplateIdOrSlug)) });

const pageQuery = {
  limit: z._default(z.queryInteger(1, 100), 20),
  offset: z.optional(z.queryInteger(0, MAX_OFFSET)),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
};

const noOffsetWithCursor = (q: { offset?: number | undefined; cursor?: string | undefined }) =>
  !(q.offset !== undefined && q.cursor !== undefined);
const noOffsetWithCursorIssue = { message: 'Send either offset or cursor, not both.', path: ['offset'] };

export const listTemplatesQuery = z
  .strictObject({
    ...pageQuery,
    sort: z.optional(z.enum(['popular', 'recent', 'rating'])),
    category: z.optional(z.enum(CATEGORIES)),
    search: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(200))),
  })
  .check(
    z.refine(noOffsetWithCursor, noOffsetWithCursorIssue),
    z.refine((q) => q.search === undefined || (q.offset ?? 0) <= MAX_SEARCH_OFFSET, {
      message: `With search, at most ${MAX_SEARCH_OFFSET}; page deeper with cursor.`,
      path: ['offset'],
    }),
  );
export type ListTemplatesQuery = z.output<typeof listTemplatesQuery>;

export const pageOnlyQuery = z.strictObject(pageQuery).check(z.refine(noOffsetWithCursor, noOffsetWithCursorIssue));
export type PageQuery = z.output<typeof pageOnlyQuery>;

/** GET /installed returns the whole (usually short) list in one page unless asked otherwise. */
export const installedQuery = z
  .strictObject({ ...pageQuery, limit: z._default(z.queryInteger(1, 100), 100) })
  .check(z.refine(noOffsetWithCursor, noOffsetWithCursorIssue));

/** POST /templates/:id/install: both optional (the current version, `minor`); no body at all is the same. */
export const installBody = z._default(
  z.strictObject({
    version: z.optional(version),
    policy: z._default(z.enum(UPDATE_POLICIES), 'minor'),
  }),
  { policy: 'minor' },
);
export type InstallInput = z.output<typeof installBody>;

/** POST /installed/:template/upgrade: to `version`, or to the newest version the (new) policy allows. */
export const upgradeBody = z._default(
  z.strictObject({ version: z.optional(version), policy: z.optional(z.enum(UPDATE_POLICIES)) }),
  {},
);
export type UpgradeInput = z.output<typeof upgradeBody>;
export const installedTemplateParams = z.object({ template: z.string().check(z.refine(isTemplateIdOrSlug)) });

/** GET /templates/:id/compare?from=&to=: `to` defaults to the current version. */
export const compareQuery = z.strictObject({ from: version, to: z.optional(version) });
export type CompareQuery = z.output<typeof compareQuery>;

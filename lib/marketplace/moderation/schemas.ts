/** Request shapes of reports and moderation (docs/api.md "Marketplace"). Strict: unknown fields are a 400. */
import * as z from '../../zod.ts';
import { pageOnlyQuery } from '../request-schemas.ts';
import { VERSION_PATTERN } from '../templates/version.ts';

export const REPORT_REASONS = ['spam', 'malware', 'impersonation', 'ranking_abuse', 'offensive', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

export const reportBody = z.strictObject({
  template_id: z.uuid('Expected a template id (UUID).'),
  /** Reports the review this user wrote of the template (one per user and template) instead of the template. */
  reviewer_id: z.optional(z.uuid("Expected the reviewer's user id (UUID), as a review's user.id.")),
  reason: z.enum(REPORT_REASONS),
  text: z.string().check(z.trim(), z.minLength(1), z.maxLength(2000)),
});
export type ReportInput = z.output<typeof reportBody>;

export const MODERATION_ACTIONS = [
  'hide',
  'restore',
  'dismiss',
  'verify_author',
  'unverify_author',
  'release',
  'reject',
] as const;
export type ModerationActionName = (typeof MODERATION_ACTIONS)[number];

/** What the publish gate holds (lib/marketplace/templates/gate.ts): a template's first version, or a later `version`. */
const onHeld = (a: ModerationActionName) => a === 'release' || a === 'reject';
const onItem = (a: ModerationActionName) => a === 'hide' || a === 'restore' || a === 'dismiss' || onHeld(a);

export const moderationBody = z
  .strictObject({
    action: z.enum(MODERATION_ACTIONS),
    template_id: z.optional(z.uuid('Expected a template id (UUID).')),
    reviewer_id: z.optional(z.uuid("Expected the reviewer's user id (UUID).")),
    author_id: z.optional(z.uuid("Expected the author's user id (UUID).")),
    version: z.optional(z.string().check(z.regex(VERSION_PATTERN, 'Must be MAJOR.MINOR.PATCH, e.g. 1.0.0.'))),
    reason: z.string().check(z.trim(), z.minLength(1), z.maxLength(1000)),
  })
  .check(
    z.refine((b) => !onItem(b.action) || b.template_id !== undefined, {
      message: 'hide, restore and dismiss name a template_id (and a reviewer_id for a review).',
      path: ['template_id'],
    }),
    z.refine(
      (b) =>
        onItem(b.action) || (b.author_id !== undefined && b.template_id === undefined && b.reviewer_id === undefined),
      {
        message: 'verify_author and unverify_author name an author_id only.',
        path: ['author_id'],
      },
    ),
    z.refine((b) => (onHeld(b.action) ? b.reviewer_id === undefined : b.version === undefined), {
      message: 'release and reject name a template_id and, for a later version, its version (no reviewer_id).',
      path: ['version'],
    }),
    z.refine((b) => !onItem(b.action) || b.author_id === undefined, {
      message: 'author_id goes with verify_author and unverify_author.',
      path: ['author_id'],
    }),
  );
export type ModerationInput = z.output<typeof moderationBody>;

export const moderationPageQuery = pageOnlyQuery;

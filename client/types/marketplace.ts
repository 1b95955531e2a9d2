/** Marketplace resources and request bodies (docs/api.md "Marketplace"). Answer types are the OpenAPI document's (./openapi.ts, generated); inputs are written here. */
import type { Page } from './common.ts';
import type * as OpenApiTypes from './openapi.ts';

export type Category = OpenApiTypes.Category;
export type Visibility = OpenApiTypes.Visibility;
export type TemplateSort = 'popular' | 'recent' | 'rating';
export type VariableType = 'string' | 'number' | 'integer' | 'boolean' | 'url';

export interface TemplateVariable {
  name: string;
  type: VariableType;
  required?: boolean;
  default?: unknown;
  description?: string;
  enum?: string[];
}

export interface TemplateCheck {
  id: string;
  type: string;
  description?: string;
  /** Strings inside may use `{{variable_name}}`. */
  config: Record<string, unknown>;
}

/** A template's schema as the service answers it (from the OpenAPI document). */
export type PublishedSchema = OpenApiTypes.TemplateSchema;

/** A template's schema as sent to publish: `required` may be left out (default true). */
export interface TemplateSchema {
  checks: TemplateCheck[];
  variables: TemplateVariable[];
}

export type Author = OpenApiTypes.Author;

export type TemplateStats = OpenApiTypes.TemplateStats;

/** A template in lists: the Template without `schema` and `versions`. */
export type TemplateSummary = OpenApiTypes.TemplateSummary;

export type TemplateVersion = OpenApiTypes.TemplateVersion;

/** A template in full, as publish, update and publishVersion return it. */
export type Template = OpenApiTypes.Template;

/** `GET /templates/:id`: the template plus its newest reviews. */
export type TemplateDetails = OpenApiTypes.TemplateDetails;

export type FeaturedTemplates = OpenApiTypes.FeaturedTemplates;

export type Review = OpenApiTypes.Review;

export type CategoryCount = OpenApiTypes.CategoryList['data'][number];

export type Installation = OpenApiTypes.Installation;

/** `install()` tells a first install (201) from a repeat (200, nothing changed). */
export interface InstallResult extends Installation {
  created: boolean;
}

export interface ListTemplatesParams {
  category?: Category;
  search?: string;
  sort?: TemplateSort;
  limit?: number;
  offset?: number;
  /** `next_cursor` of the previous page; replaces `offset`. */
  cursor?: string;
}

export interface ListInstalledParams {
  limit?: number;
  offset?: number;
  /** `next_cursor` of the previous page; replaces `offset`. */
  cursor?: string;
}

export interface ListReviewsParams {
  limit?: number;
  offset?: number;
  cursor?: string;
}

export interface PublishTemplateInput {
  name: string;
  slug: string;
  category: Category;
  version: string;
  schema: TemplateSchema;
  description?: string;
  visibility?: Visibility;
}

export interface UpdateTemplateInput {
  name?: string;
  description?: string;
  category?: Category;
  visibility?: Visibility;
}

export interface PublishVersionInput {
  version: string;
  schema: TemplateSchema;
  changelog?: string;
}

export interface CreateReviewInput {
  /** Integer 1–5. */
  rating: number;
  title: string;
  /** Default "". */
  comment?: string;
}

export type TemplatePage = Page<TemplateSummary>;
export type ReviewPage = Page<Review>;

/** PATCH …/versions/:version: `deprecated` a message (or null to take it back), `yanked` true or false. */
export interface ChangeVersionInput {
  deprecated?: string | null;
  yanked?: boolean;
  /** Told to the installers with `yanked: true`. */
  reason?: string;
}

export type VersionChanged = OpenApiTypes.VersionChanged;

export interface TemplateStatsParams {
  /** UTC date, YYYY-MM-DD, included. */
  from: string;
  /** UTC date, YYYY-MM-DD, included; at most 366 days after `from`. */
  to: string;
  granularity?: 'day';
}

export type TemplateStatsSeries = OpenApiTypes.TemplateStatsSeries;

export type EventAgents = OpenApiTypes.EventAgents;

export interface SetEventAgentsInput {
  /** At most 10 of the caller's agents; [] for none. */
  agent_ids: string[];
}

export type ReportReason = OpenApiTypes.Report['reason'];

export interface CreateReportInput {
  template_id: string;
  /** To report a review: the reviewer's user id (the review's `user.id`). */
  reviewer_id?: string;
  reason: ReportReason;
  text: string;
}

export type Report = OpenApiTypes.Report;

export type ModerationActionName = OpenApiTypes.ModerationAction['action'];

export interface ModerateInput {
  action: ModerationActionName;
  /** hide, restore, dismiss: the template (and `reviewer_id` for one of its reviews). */
  template_id?: string;
  reviewer_id?: string;
  /** verify_author, unverify_author. */
  author_id?: string;
  reason: string;
}

export type ModerationAction = OpenApiTypes.ModerationAction;

export interface ListModerationParams {
  limit?: number;
  offset?: number;
  cursor?: string;
}

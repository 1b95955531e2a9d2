/** Marketplace resources and request bodies (docs/api.md "Marketplace"). */
import type { Page } from './common.ts';
import type * as OpenApiTypes from './openapi.ts';

export type Category = 'http' | 'artifact' | 'code' | 'data' | 'document' | 'ai' | 'other';
export type Visibility = 'public' | 'private' | 'unlisted';
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

export interface Author {
  id: string;
  name: string;
  verified: boolean;
}

export interface TemplateStats {
  installs: number;
  rating_avg: number;
  rating_count: number;
  contracts_created: number;
}

/** A template in lists: the Template without `schema` and `versions`. */
export interface TemplateSummary {
  id: string;
  name: string;
  slug: string;
  description: string;
  category: Category;
  author: Author;
  version: string;
  stats: TemplateStats;
  visibility: Visibility;
  created_at: string;
  updated_at: string;
}

export interface TemplateVersion {
  version: string;
  /** `""` when the version was published without one. */
  changelog: string;
  created_at: string;
}

/** A template in full, as publish, update and publishVersion return it. */
export interface Template extends TemplateSummary {
  /** As stored: every variable has `required` (the default, true, filled in). */
  schema: PublishedSchema;
  versions: TemplateVersion[];
}

/** `GET /templates/:id`: the template plus its newest reviews. */
export interface TemplateDetails extends Template {
  reviews: Review[];
}

export interface FeaturedTemplates {
  featured: TemplateSummary[];
  trending: TemplateSummary[];
  new: TemplateSummary[];
  top_rated: TemplateSummary[];
}

export interface Review {
  id: string;
  user: { id: string; name: string };
  rating: number;
  title: string;
  comment: string;
  created_at: string;
}

export interface CategoryCount {
  name: Category;
  count: number;
}

export interface Installation {
  template_id: string;
  workspace_id: string;
  version: string;
  installed_at: string;
}

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

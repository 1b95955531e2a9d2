/**
 * The stored template item (layout in CONTRIBUTING.md) and its projections to the API shapes
 * (answer.ts; re-exported here for the rooms that read them).
 * Sort keys (`popKey`, `recentKey`, `ratingKey`, `trendKey`) are always present; the partition
 * attributes that put a template into a list index exist only while it is public, which is what
 * keeps private and unlisted templates out of every list.
 */
import type { Caller } from '../../core/caller.ts';
import * as keys from '../../store/key-builders.ts';
import { ENTITY, listPartitions, type TemplateListAttributes } from '../../store/keys.ts';
import type { PublishInput } from '../request-schemas.ts';
import type { Author, Quarantine, Template, TemplateSummary, VersionEntry } from './answer.ts';
import type { Category, Visibility } from './categories.ts';
import type { TemplateSchema } from './template-schema.ts';

export interface TemplateItem extends TemplateListAttributes {
  PK: string;
  SK: string;
  entity: typeof ENTITY.template;
  id: string;
  slug: string;
  name: string;
  description: string;
  category: Category;
  author: Author;
  version: string;
  schema: TemplateSchema;
  visibility: Visibility;
  created_at: string;
  updated_at: string;
  installs: number;
  rating_sum: number;
  rating_count: number;
  rating_avg: number;
  contracts_created: number;
  featured?: boolean;
  featured_at?: string;
  /** The current version's deprecation message, while it has one (lib/marketplace/lifecycle). */
  current_deprecation?: string;
  /** Every version yanked: out of every list, no new installs or contracts (lib/marketplace/lifecycle). */
  all_yanked?: boolean;
  /** Hidden by an operator, with the reason: only its author and operators see it (lib/marketplace/moderation). */
  hidden?: boolean;
  hidden_reason?: string;
  /** The first version held by the publish gate (gate.ts): hidden too, until an operator releases it. */
  quarantine?: Quarantine;
  /**
   * +1 on every change of list membership (visibility, category, featured, trend day): those
   * changes compute the index partitions from what they read, so they are conditional on it.
   */
  rev: number;
  /** UTC day of the latest install; with `trendKey` = installs in the 7 days ending that day. */
  trend_day?: string;
  popKey: number;
  recentKey: string;
  ratingKey: string;
  trendKey: number;
  [bucket: `inst_${string}`]: number;
}

/** Smallest ratingKey of a rated template (ratings are 1–5, so an average is at least 1.00). */
export const UNRATED_RATING_KEY = ratingKey(0, 0);

export function newTemplateItem(
  input: PublishInput,
  author: Author,
  id: string,
  now: string,
  quarantine?: Quarantine,
): TemplateItem {
  const item: TemplateItem = {
    ...keys.template(id),
    entity: ENTITY.template,
    id,
    slug: input.slug,
    name: input.name,
    description: input.description,
    category: input.category,
    author,
    version: input.version,
    schema: input.schema,
    visibility: input.visibility,
    created_at: now,
    updated_at: now,
    installs: 0,
    rating_sum: 0,
    rating_count: 0,
    rating_avg: 0,
    contracts_created: 0,
    rev: 0,
    popKey: 0,
    recentKey: `${now}#${id}`,
    ratingKey: UNRATED_RATING_KEY,
    trendKey: 0,
    // Held by the publish gate: hidden (out of every list, seen by its author and operators) until released.
    ...(quarantine ? { quarantine, hidden: true, hidden_reason: 'Held by the publish gate.' } : {}),
  };
  return { ...item, ...listPartitions(item).set };
}

export const authorOf = (caller: Caller): Author => ({
  id: caller.userId,
  name: caller.name,
  verified: caller.verified,
});

/** Rounded to 2 decimals, as the API shows it (0 while unrated). */
export function ratingAverage(sum: number, count: number): number {
  return count === 0 ? 0 : Math.round((sum * 100) / count) / 100;
}

/** Average desc, then count desc, as one string: "<avg×100, 3 digits>#<count, 10 digits>". */
export function ratingKey(sum: number, count: number): string {
  const avg = Math.round(ratingAverage(sum, count) * 100);
  return `${String(avg).padStart(3, '0')}#${String(count).padStart(10, '0')}`;
}

export function toSummary(item: TemplateItem): TemplateSummary {
  return {
    id: item.id,
    name: item.name,
    slug: item.slug,
    description: item.description,
    category: item.category,
    author: item.author,
    version: item.version,
    stats: {
      installs: Number(item.installs ?? 0),
      // From the exact counters, never from the derived attribute, so it cannot lag.
      rating_avg: ratingAverage(Number(item.rating_sum ?? 0), Number(item.rating_count ?? 0)),
      rating_count: Number(item.rating_count ?? 0),
      contracts_created: Number(item.contracts_created ?? 0),
    },
    visibility: item.visibility,
    deprecated: item.current_deprecation ?? null,
    yanked: item.all_yanked === true,
    hidden: item.hidden === true,
    created_at: item.created_at,
    updated_at: item.updated_at,
  };
}

/** The API's version entry from a stored version item (or its projection). */
export const versionEntryOf = (v: Record<string, unknown>): VersionEntry => ({
  version: v['version'] as string,
  changelog: (v['changelog'] as string | undefined) ?? '',
  created_at: v['created_at'] as string,
  deprecated:
    typeof v['deprecated_message'] === 'string'
      ? { message: v['deprecated_message'], at: v['deprecated_at'] as string }
      : null,
  yanked_at: (v['yanked_at'] as string | undefined) ?? null,
  quarantine: (v['quarantine'] as Quarantine | undefined) ?? null,
});

export function toTemplate(item: TemplateItem, versions: VersionEntry[]): Template {
  return { ...toSummary(item), schema: item.schema, versions, quarantine: item.quarantine ?? null };
}

export type { Author, Quarantine, TemplateSummary, VersionEntry };

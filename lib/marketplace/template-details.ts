import type { Caller } from '../core/caller.ts';
import { newestReviews } from './reviews/reviews.ts';
import { isAuthor, visibleTemplate } from './templates/find-template.ts';
import { toTemplate } from './templates/template-item.ts';
import { newestVersions } from './templates/versions.ts';

/** GET /templates/:id: the template, its versions (newest first) and its newest 20 reviews. */
export async function templateDetails(idOrSlug: string, caller: Caller) {
  const item = await visibleTemplate(idOrSlug, caller);
  const [versions, reviews] = await Promise.all([newestVersions(item.id), newestReviews(item.id, 20)]);
  // A version the publish gate holds exists for its author and operators only.
  const seen = isAuthor(item, caller) || caller.operator ? versions : versions.filter((v) => v.quarantine === null);
  return { ...toTemplate(item, seen), reviews };
}

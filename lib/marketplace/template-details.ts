import type { Caller } from '../core/caller.ts';
import { newestReviews } from './reviews/reviews.ts';
import { visibleTemplate } from './templates/find-template.ts';
import { toTemplate } from './templates/template-item.ts';
import { newestVersions } from './templates/versions.ts';

/** GET /templates/:id: the template, its versions (newest first) and its newest 20 reviews. */
export async function templateDetails(idOrSlug: string, caller: Caller) {
  const item = await visibleTemplate(idOrSlug, caller);
  const [versions, reviews] = await Promise.all([newestVersions(item.id), newestReviews(item.id, 20)]);
  return { ...toTemplate(item, versions), reviews };
}

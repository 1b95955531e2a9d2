import type { Caller } from '../core/caller.ts';
import { readInstallMarker } from './lifecycle/store.ts';
import { newestReviews } from './reviews/reviews.ts';
import { readReview } from './reviews/store.ts';
import { isAuthor, visibleTemplate } from './templates/find-template.ts';
import { toTemplate } from './templates/template-item.ts';
import { newestVersions } from './templates/versions.ts';

/**
 * GET /templates/:id: the template, its versions (newest first), its newest 20 reviews, and what
 * the caller has done with it (`viewer`: author, installed, reviewed), so a page can say
 * "Installed" and why there is no review form without a second request.
 */
export async function templateDetails(idOrSlug: string, caller: Caller) {
  const item = await visibleTemplate(idOrSlug, caller);
  const [versions, reviews, install, review] = await Promise.all([
    newestVersions(item.id),
    newestReviews(item.id, 20),
    readInstallMarker(caller.workspaceId, item.id),
    readReview(item.id, caller.userId),
  ]);
  // A version the publish gate holds exists for its author and operators only.
  const seen = isAuthor(item, caller) || caller.operator ? versions : versions.filter((v) => v.quarantine === null);
  return {
    ...toTemplate(item, seen),
    reviews,
    viewer: { author: isAuthor(item, caller), installed: install !== undefined, reviewed: review !== undefined },
  };
}

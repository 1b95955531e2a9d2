/**
 * One review per user and template: the review item's key is (template, user), and its
 * "does not exist" condition sits in the same transaction as the counters, so a second review,
 * a concurrent one or a retried request never counts twice.
 */
import type { Caller } from '../../core/caller.ts';
import { AppError, forbidden, InvariantError } from '../../core/errors.ts';
import { newUuid } from '../../core/ids.ts';
import { nowIso } from '../../core/time.ts';
import { alongLost, alongRefused, type CommitAlong } from '../../store/transact.ts';
import type { PageQuery, ReviewInput } from '../request-schemas.ts';
import { countStats } from '../stats/count.ts';
import { isAuthor, visibleTemplate } from '../templates/find-template.ts';
import { refreshRatingKey } from './rating.ts';
import { type Review, reviewItem, toReview } from './review-item.ts';
import { hiddenReviewsPage, insertReview, readReview, reviewsCursorPage, reviewsPage } from './store.ts';

/** `along`: items committed with the review (the request's Idempotency-Key answer). */
export async function createReview(
  idOrSlug: string,
  input: ReviewInput,
  caller: Caller,
  along?: CommitAlong<Review>,
): Promise<Review> {
  const template = await visibleTemplate(idOrSlug, caller);
  if (isAuthor(template, caller)) throw forbidden('You cannot review your own template.');
  const item = reviewItem(template.id, input, caller, newUuid(), nowIso());
  const alongItems = along?.(toReview(item)) ?? [];
  const result = await insertReview(
    item,
    template.id,
    input.rating,
    countStats(template.id, template.version, item.created_at, { reviews: 1, rating_sum: input.rating }),
    alongItems,
  );
  if (!result.ok) {
    if (alongRefused(result.reasons, alongItems.length)) throw alongLost();
    if (result.reasons[0] === 'ConditionalCheckFailed')
      throw new AppError('review_exists', 'You have already reviewed this template.');
    throw new InvariantError(`review transaction cancelled: ${result.reasons.join(',')}`);
  }
  await refreshRatingKey(template.id);
  return toReview(item);
}

export async function newestReviews(templateId: string, limit: number): Promise<Review[]> {
  return (await reviewsPage(templateId, limit)).map(toReview);
}

/**
 * GET /templates/:id/reviews: newest first; total is the template's exact review count (hidden
 * reviews are not in it). The first page leads with the hidden reviews the caller may still see,
 * marked `hidden`, so the paging of the visible ones stays as everyone else sees it.
 */
export async function listReviews(idOrSlug: string, query: PageQuery, caller: Caller) {
  const template = await visibleTemplate(idOrSlug, caller);
  const firstPage = query.cursor === undefined && (query.offset ?? 0) === 0;
  const [hidden, page] = await Promise.all([
    firstPage ? hiddenReviewsSeenBy(template.id, caller, query.limit) : [],
    reviewsCursorPage(template.id, query),
  ]);
  return {
    data: [...hidden, ...page.entries].map(toReview),
    pagination: {
      limit: query.limit,
      offset: page.offset,
      total: Number(template.rating_count ?? 0),
      has_more: page.hasMore,
      next_cursor: page.next_cursor,
    },
  };
}

/**
 * Operators: up to `limit` newest hidden reviews, one query of the hidden partition (moderate.ts
 * moves a hidden review's GSI1 entry there). Anyone else: at most their own, one GetItem, as a
 * user has one review per template. Either way a bounded read, and no one else learns of them.
 */
async function hiddenReviewsSeenBy(templateId: string, caller: Caller, limit: number) {
  if (caller.operator) {
    return hiddenReviewsPage(templateId, limit);
  }
  const own = await readReview(templateId, caller.userId);
  return own?.['hidden'] === true ? [own] : [];
}

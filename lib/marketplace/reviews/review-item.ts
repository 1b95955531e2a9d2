import type { Caller } from '../../core/caller.ts';
import * as keys from '../../store/key-builders.ts';
import { ENTITY } from '../../store/keys.ts';
import type { ReviewInput } from '../request-schemas.ts';
import type { Review } from './answer.ts';

/** A review (answer.ts): keyed by template and reviewer (one per user), listed newest first through GSI1. */
export type { Review };

export function reviewItem(templateId: string, input: ReviewInput, caller: Caller, id: string, now: string) {
  return {
    ...keys.review(templateId, caller.userId),
    entity: ENTITY.review,
    ...keys.reviewsIndex(templateId, now, id),
    id,
    template_id: templateId,
    user: { id: caller.userId, name: caller.name },
    rating: input.rating,
    title: input.title,
    comment: input.comment,
    created_at: now,
  };
}

export const toReview = (item: Record<string, unknown>): Review => ({
  id: item['id'] as string,
  user: item['user'] as Review['user'],
  rating: item['rating'] as number,
  title: item['title'] as string,
  comment: item['comment'] as string,
  created_at: item['created_at'] as string,
  ...(item['hidden'] === true ? { hidden: true as const } : {}),
});

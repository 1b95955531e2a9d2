/**
 * At most `perWindow` actions per window on one limiter item, across any number of function
 * instances: the item is changed only by conditional writes. A window start further ahead than any
 * in-bound clock could have written is stale, so a broken clock cannot lock anyone out.
 */
import { rateLimited } from '../core/errors.ts';
import { FUTURE_TOLERANCE_MS } from '../core/settings.ts';
import { conditionalUpdate } from '../store/conditional.ts';
import type { Key } from '../store/keys.ts';

export interface WindowLimit {
  key: Key;
  entity: string;
  perWindow: number;
  windowMs: number;
  /** The 429's message when the window is full. */
  refusal: string;
}

export async function takeWindowSlot(limit: WindowLimit, now: () => number = Date.now): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const t = now();
    const values = {
      ':windowFloor': t - limit.windowMs,
      ':skewCeiling': t + FUTURE_TOLERANCE_MS,
      ':one': 1,
      ':entity': limit.entity,
      ':expires': Math.ceil((t + limit.windowMs) / 1000) + 3600,
    };
    const sameWindow = await conditionalUpdate({
      Key: limit.key,
      UpdateExpression: 'SET entity = :entity, expires_at = :expires ADD window_count :one',
      ConditionExpression: 'window_start > :windowFloor AND window_start <= :skewCeiling AND window_count < :max',
      ExpressionAttributeValues: { ...values, ':max': limit.perWindow },
    });
    if (sameWindow.ok) return;
    const newWindow = await conditionalUpdate({
      Key: limit.key,
      UpdateExpression: 'SET entity = :entity, expires_at = :expires, window_start = :now, window_count = :one',
      ConditionExpression:
        'attribute_not_exists(window_start) OR window_start <= :windowFloor OR window_start > :skewCeiling',
      ExpressionAttributeValues: { ...values, ':now': t },
    });
    if (newWindow.ok) return;
    const start = newWindow.current?.['window_start'];
    const count = newWindow.current?.['window_count'];
    if (typeof start === 'number' && typeof count === 'number' && count >= limit.perWindow) {
      throw rateLimited(limit.refusal, Math.max(1, (start + limit.windowMs - t) / 1000));
    }
    // Another instance moved the item between our two writes: look again.
  }
  throw rateLimited('Too many requests at once; try again in a moment.', 1);
}

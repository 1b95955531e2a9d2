/**
 * At most `REPLAY_LIMITS.perWindow` replays started per agent per window, across any number of
 * function instances: one item changed only by conditional writes (the verify limiter's window,
 * without its lease). A window start further ahead than any in-bound clock could have written is
 * stale, so a broken clock cannot lock an agent out.
 */
import { rateLimited } from '../core/errors.ts';
import { FUTURE_TOLERANCE_MS, REPLAY_LIMITS } from '../core/settings.ts';
import { conditionalUpdate } from '../store/conditional.ts';
import { ENTITY, replayLimitKey } from '../store/keys.ts';

export async function takeReplaySlot(agentId: string, now: () => number = Date.now): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const t = now();
    const values = {
      ':windowFloor': t - REPLAY_LIMITS.windowMs,
      ':skewCeiling': t + FUTURE_TOLERANCE_MS,
      ':one': 1,
      ':entity': ENTITY.replayLimit,
      ':expires': Math.ceil((t + REPLAY_LIMITS.windowMs) / 1000) + 3600,
    };
    const sameWindow = await conditionalUpdate({
      Key: replayLimitKey(agentId),
      UpdateExpression: 'SET entity = :entity, expires_at = :expires ADD window_count :one',
      ConditionExpression: 'window_start > :windowFloor AND window_start <= :skewCeiling AND window_count < :max',
      ExpressionAttributeValues: { ...values, ':max': REPLAY_LIMITS.perWindow },
    });
    if (sameWindow.ok) return;
    const newWindow = await conditionalUpdate({
      Key: replayLimitKey(agentId),
      UpdateExpression: 'SET entity = :entity, expires_at = :expires, window_start = :now, window_count = :one',
      ConditionExpression:
        'attribute_not_exists(window_start) OR window_start <= :windowFloor OR window_start > :skewCeiling',
      ExpressionAttributeValues: { ...values, ':now': t },
    });
    if (newWindow.ok) return;
    const start = newWindow.current?.['window_start'];
    const count = newWindow.current?.['window_count'];
    if (typeof start === 'number' && typeof count === 'number' && count >= REPLAY_LIMITS.perWindow) {
      throw rateLimited(
        `An agent may start ${REPLAY_LIMITS.perWindow} replays per ${REPLAY_LIMITS.windowMs / 60_000} minutes; try again later.`,
        Math.max(1, (start + REPLAY_LIMITS.windowMs - t) / 1000),
      );
    }
    // Another instance moved the item between our two writes: look again.
  }
  throw rateLimited('Too many replays of this agent at once; try again in a moment.', 1);
}

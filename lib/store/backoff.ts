/** The one jittered backoff of the store: transactions (transact.ts) and read-decide-write loops (optimistic.ts) retry with it. */
import { type AppError, rateLimited } from '../core/errors.ts';

/** The answer when a write is still contended after every retry: nothing was written, and the client may try again shortly. */
export const stillContended = (): AppError =>
  rateLimited('Too many concurrent changes to the same item; try again in a moment.', 1);

/**
 * Waits a random time that grows with the attempt number (full jitter, capped at `capMs`): writers
 * that collided on one item spread out instead of colliding again in step.
 */
export function backoff(attempt: number, capMs = 500): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(capMs, 10 * 2 ** attempt)));
}

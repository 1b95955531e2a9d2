/**
 * At most `perWindow` actions per window on one limiter item, across any number of function
 * instances: the item is changed only by conditional writes. A window start further ahead than any
 * in-bound clock could have written is stale, so a broken clock cannot lock anyone out.
 */
import { rateLimited } from '../core/errors.ts';
import { addToWindow, openWindow, type WindowItem } from './store.ts';

export interface WindowLimit extends WindowItem {
  /** The 429's message when the window is full. */
  refusal: string;
}

/** Taken, or refused until `windowEnds` (ms, the refusing item's clock) with the item as it was. */
export type WindowAnswer =
  | { taken: true }
  | { taken: false; windowStart: number; windowEnds: number; current: Record<string, unknown> };

/**
 * A place in the window, or the window's end when it is full. With `member` (an action's id) an
 * action taken again in the same window is answered `taken` without counting it twice.
 */
export async function tryWindowSlot(
  limit: WindowItem,
  now: () => number = Date.now,
  member?: string,
): Promise<WindowAnswer> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const t = now();
    const sameWindow = await addToWindow(limit, t, member);
    if (sameWindow.ok) return { taken: true };
    const newWindow = await openWindow(limit, t, member);
    if (newWindow.ok) return { taken: true };
    const current = newWindow.current ?? {};
    const admitted = current['admitted'];
    if (member && admitted instanceof Set && admitted.has(member)) return { taken: true };
    const start = current['window_start'];
    const count = current['window_count'];
    if (typeof start === 'number' && typeof count === 'number' && count >= limit.perWindow) {
      return { taken: false, windowStart: start, windowEnds: start + limit.windowMs, current };
    }
    // Another instance moved the item between our two writes: look again.
  }
  throw rateLimited('Too many requests at once; try again in a moment.', 1);
}

export async function takeWindowSlot(limit: WindowLimit, now: () => number = Date.now): Promise<void> {
  const answer = await tryWindowSlot(limit, now);
  if (!answer.taken) throw rateLimited(limit.refusal, Math.max(1, (answer.windowEnds - now()) / 1000));
}

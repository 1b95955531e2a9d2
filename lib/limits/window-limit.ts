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

export async function takeWindowSlot(limit: WindowLimit, now: () => number = Date.now): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const t = now();
    const sameWindow = await addToWindow(limit, t);
    if (sameWindow.ok) return;
    const newWindow = await openWindow(limit, t);
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

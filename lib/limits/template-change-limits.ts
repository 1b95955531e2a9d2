/**
 * Changes of one template that fan out beyond its author, limited per template across any number
 * of function instances (window-limit.ts: the replay limiter's conditional window):
 * - version changes (deprecate, yank): each may tell every installer's chosen agents;
 * - visibility changes: each moves the template's whole search index (postings, word pairs and
 *   counters shared with every other template of the same words).
 */
import { VERSION_CHANGE_LIMITS, VISIBILITY_CHANGE_LIMITS } from '../core/settings.ts';
import { ENTITY, type Key, lifecycleKeys } from '../store/keys.ts';
import { takeWindowSlot } from './window-limit.ts';

/** A per-template window limit: `what` names the change in the 429's words. */
const templateChangeSlot =
  (what: string, keyOf: (templateId: string) => Key, entity: string, limits: { perWindow: number; windowMs: number }) =>
  (templateId: string, now: () => number = Date.now): Promise<void> =>
    takeWindowSlot(
      {
        key: keyOf(templateId),
        entity,
        ...limits,
        refusal: `A template's ${what} may be changed ${limits.perWindow} times per ${limits.windowMs / 60_000} minutes; try again later.`,
      },
      now,
    );

export const takeVersionChangeSlot = templateChangeSlot(
  'versions',
  lifecycleKeys.versionChangeLimit,
  ENTITY.versionChangeLimit,
  VERSION_CHANGE_LIMITS,
);

export const takeVisibilityChangeSlot = templateChangeSlot(
  'visibility',
  lifecycleKeys.visibilityLimit,
  ENTITY.visibilityLimit,
  VISIBILITY_CHANGE_LIMITS,
);

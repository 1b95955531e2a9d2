/**
 * Changes of one template that fan out beyond its author, limited per template across any number
 * of function instances (window-limit.ts: the replay limiter's conditional window):
 * - version changes (deprecate, yank): each may tell every installer's chosen agents;
 * - visibility changes: each moves the template's whole search index (postings, word pairs and
 *   counters shared with every other template of the same words).
 */
import { VERSION_CHANGE_LIMITS, VISIBILITY_CHANGE_LIMITS } from '../core/settings.ts';
import { ENTITY, lifecycleKeys } from '../store/keys.ts';
import { takeWindowSlot } from './window-limit.ts';

const minutes = (ms: number) => ms / 60_000;

export const takeVersionChangeSlot = (templateId: string, now: () => number = Date.now): Promise<void> =>
  takeWindowSlot(
    {
      key: lifecycleKeys.versionChangeLimit(templateId),
      entity: ENTITY.versionChangeLimit,
      ...VERSION_CHANGE_LIMITS,
      refusal: `A template's versions may be changed ${VERSION_CHANGE_LIMITS.perWindow} times per ${minutes(VERSION_CHANGE_LIMITS.windowMs)} minutes; try again later.`,
    },
    now,
  );

export const takeVisibilityChangeSlot = (templateId: string, now: () => number = Date.now): Promise<void> =>
  takeWindowSlot(
    {
      key: lifecycleKeys.visibilityLimit(templateId),
      entity: ENTITY.visibilityLimit,
      ...VISIBILITY_CHANGE_LIMITS,
      refusal: `A template's visibility may be changed ${VISIBILITY_CHANGE_LIMITS.perWindow} times per ${minutes(VISIBILITY_CHANGE_LIMITS.windowMs)} minutes; try again later.`,
    },
    now,
  );

import { ENTITY, lifecycleKeys } from '../../store/keys.ts';
import type { ModerationAction } from './answer.ts';
import type { ModerationActionName } from './schemas.ts';

/** One moderation action as operators see it (GET /moderation/actions; answer.ts). */
export type { ModerationAction };

/** Keyed by its id, in the moderation log index by time. */
export const actionItem = (action: ModerationAction) => ({
  ...lifecycleKeys.moderationAction(action.id),
  entity: ENTITY.moderationAction,
  ...lifecycleKeys.moderationLogIndex(action.created_at, action.id),
  ...action,
});

export const toAction = (item: Record<string, unknown>): ModerationAction => ({
  id: item['id'] as string,
  action: item['action'] as ModerationActionName,
  operator: item['operator'] as ModerationAction['operator'],
  template_id: (item['template_id'] as string | null) ?? null,
  reviewer_id: (item['reviewer_id'] as string | null) ?? null,
  author_id: (item['author_id'] as string | null) ?? null,
  version: (item['version'] as string | null | undefined) ?? null,
  reason: item['reason'] as string,
  changed: item['changed'] === true,
  reports_closed: Number(item['reports_closed'] ?? 0),
  created_at: item['created_at'] as string,
});

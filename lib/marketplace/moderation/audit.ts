/**
 * The operators' audit trail: one item per moderation action, written in the same transaction as
 * the change where there is one, listed newest first (GET /moderation/actions, operators only).
 */
import type { Caller } from '../../core/caller.ts';
import { tableName } from '../../store/client.ts';
import { cursorPage } from '../../store/cursor-page.ts';
import { ENTITY, lifecycleKeys } from '../../store/keys.ts';
import { INDEXES } from '../../store/table.ts';
import type { TransactItem } from '../../store/transact.ts';
import type { PageQuery } from '../request-schemas.ts';
import { requireOperator } from './operators.ts';
import type { ModerationActionName } from './schemas.ts';

export interface ModerationAction {
  id: string;
  action: ModerationActionName;
  operator: { id: string; name: string };
  template_id: string | null;
  reviewer_id: string | null;
  author_id: string | null;
  reason: string;
  /** Whether it changed anything (hiding a hidden template changes nothing, and is recorded all the same). */
  changed: boolean;
  reports_closed: number;
  created_at: string;
}

export const putAction = (action: ModerationAction): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: {
      ...lifecycleKeys.moderationAction(action.id),
      entity: ENTITY.moderationAction,
      ...lifecycleKeys.moderationLogIndex(action.created_at, action.id),
      ...action,
    },
  },
});

const toAction = (item: Record<string, unknown>): ModerationAction => ({
  id: item['id'] as string,
  action: item['action'] as ModerationActionName,
  operator: item['operator'] as ModerationAction['operator'],
  template_id: (item['template_id'] as string | null) ?? null,
  reviewer_id: (item['reviewer_id'] as string | null) ?? null,
  author_id: (item['author_id'] as string | null) ?? null,
  reason: item['reason'] as string,
  changed: item['changed'] === true,
  reports_closed: Number(item['reports_closed'] ?? 0),
  created_at: item['created_at'] as string,
});

export async function listActions(caller: Caller, query: PageQuery) {
  requireOperator(caller);
  const page = await cursorPage(INDEXES.gsi1, lifecycleKeys.moderationLogPk, 'moderation|log', query);
  return { data: page.entries.map(toAction), next_cursor: page.next_cursor };
}

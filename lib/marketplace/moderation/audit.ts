/**
 * The operators' audit trail: one item per moderation action, written in the same transaction as
 * the change where there is one (action-item.ts, store.ts `recordAction`), listed newest first
 * (GET /moderation/actions, operators only).
 */
import type { Caller } from '../../core/caller.ts';
import type { PageQuery } from '../request-schemas.ts';
import { toAction } from './action-item.ts';
import { requireOperator } from './operators.ts';
import { actionsPage } from './store.ts';

export async function listActions(caller: Caller, query: PageQuery) {
  requireOperator(caller);
  const page = await actionsPage(query);
  return { data: page.entries.map(toAction), next_cursor: page.next_cursor };
}

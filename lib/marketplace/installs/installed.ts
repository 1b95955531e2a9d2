import type { Caller } from '../../core/caller.ts';
import type { PageQuery } from '../request-schemas.ts';
import { canSee } from '../templates/find-template.ts';
import { templatesInOrder } from '../templates/store.ts';
import { toSummary } from '../templates/template-item.ts';
import { installsPage } from './store.ts';

/**
 * GET /installed: the workspace's templates, most recently installed first. A template that has
 * since gone private to someone else is left out (it is not theirs to see any more).
 */
export async function listInstalled(caller: Caller, query: PageQuery) {
  const page = await installsPage(caller.workspaceId, query);
  const templates = await templatesInOrder(
    page.entries.map((e) => e['template_id'] as string),
    (t) => canSee(t, caller),
  );
  return {
    data: templates.map(toSummary),
    next_cursor: page.next_cursor,
  };
}

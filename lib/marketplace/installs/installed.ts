import type { Caller } from '../../core/caller.ts';
import { decodeCursor, encodeCursor } from '../../store/cursor.ts';
import { indexKeyTypes, readIndexPage } from '../../store/index-page.ts';
import { keys } from '../../store/keys.ts';
import { INDEXES } from '../../store/table.ts';
import type { PageQuery } from '../request-schemas.ts';
import { canSee } from '../templates/find-template.ts';
import { templatesInOrder } from '../templates/store.ts';
import { toSummary } from '../templates/template-item.ts';

const installsIndex = INDEXES.gsi1;

/**
 * GET /installed: the workspace's templates, most recently installed first. A template that has
 * since gone private to someone else is left out (it is not theirs to see any more).
 */
export async function listInstalled(caller: Caller, query: PageQuery) {
  const partition = keys.installsIndexPk(caller.workspaceId);
  const scope = `installed|${caller.workspaceId}`;
  const start = query.cursor
    ? decodeCursor(query.cursor, scope, indexKeyTypes(installsIndex), { [installsIndex.partitionKey]: partition })
    : undefined;
  const offset = start?.position ?? query.offset ?? 0;
  const page = await readIndexPage(installsIndex, partition, {
    skip: start ? 0 : offset,
    limit: query.limit,
    startKey: start?.key,
  });
  const templates = await templatesInOrder(
    page.entries.map((e) => e['template_id'] as string),
    (t) => canSee(t, caller),
  );
  return {
    data: templates.map(toSummary),
    next_cursor: page.nextKey ? encodeCursor(scope, page.nextKey, offset + page.entries.length) : null,
  };
}

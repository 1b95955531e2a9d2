/**
 * Syncs the search index of every public template now (`npm run admin -- reindex-search`). After a
 * change of the index's format (word pairs, format 2), a template indexed before it gets the new
 * items at its next sync; this is that sync, for the whole catalog, without waiting for edits.
 * Private and unlisted templates have nothing indexed. Each sync is the stream indexer's own, and
 * one that meets a concurrent sync of the same template redoes its writes (search-index.ts).
 * Then it records the format, from which search trusts what the format adds (word-pairs.ts): run
 * it after the deploy has replaced the indexer, so no template is indexed the old way after it.
 */

import type { StartKey } from '../../store/cursor.ts';
import { templateIdOf, templateLists } from '../../store/keys.ts';
import { INDEXES } from '../../store/table.ts';
import { templateListPage } from '../templates/store.ts';
import { INDEX_FORMAT, syncSearchIndex } from './search-index.ts';
import { readIndexFormat, writeIndexFormat } from './store.ts';

const PAGE = 100;
const PARALLEL = 4;

export async function reindexSearch(): Promise<{ templates: number }> {
  let templates = 0;
  let startKey: StartKey | undefined;
  do {
    const page = await templateListPage(INDEXES.allByRecent, templateLists.all, {
      skip: 0,
      limit: PAGE,
      ...(startKey ? { startKey } : {}),
    });
    startKey = page.nextKey;
    const ids = page.keys.map(templateIdOf);
    for (let i = 0; i < ids.length; i += PARALLEL)
      await Promise.all(ids.slice(i, i + PARALLEL).map((id) => syncSearchIndex(id)));
    templates += ids.length;
  } while (startKey);
  await recordIndexFormat();
  return { templates };
}

/** Reindexes when the recorded format is behind the current one (`npm start`: a new table, or a data folder of an older version). */
export async function reindexIfBehind(): Promise<boolean> {
  if ((await readIndexFormat()) >= INDEX_FORMAT) return false;
  await reindexSearch();
  return true;
}

/** Records that every public template's index has the current format (reindexSearch, or a catalog built by the current indexer's own builders). */
export const recordIndexFormat = (): Promise<void> => writeIndexFormat(INDEX_FORMAT);

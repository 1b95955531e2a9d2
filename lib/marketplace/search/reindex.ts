/**
 * Syncs the search index of every public template now (`npm run admin -- reindex-search`). After a
 * change of the index's format (word pairs, format 2), a template indexed before it gets the new
 * items at its next sync; this is that sync, for the whole catalog, without waiting for edits.
 * Private and unlisted templates have nothing indexed. Each sync is the stream indexer's own, so
 * running it twice, or while the service runs, is harmless.
 */
import { templateIdOf, templateLists } from '../../store/keys.ts';
import { INDEXES } from '../../store/table.ts';
import type { StartKey } from '../../store/cursor.ts';
import { readIndexPage } from '../../store/index-page.ts';
import { syncSearchIndex } from './search-index.ts';

const PAGE = 100;
const PARALLEL = 4;

export async function reindexSearch(): Promise<{ templates: number }> {
  let templates = 0;
  let startKey: StartKey | undefined;
  do {
    const page = await readIndexPage(INDEXES.allByRecent, templateLists.all, { skip: 0, limit: PAGE, ...(startKey ? { startKey } : {}) });
    startKey = page.nextKey;
    const ids = page.keys.map(templateIdOf);
    for (let i = 0; i < ids.length; i += PARALLEL) await Promise.all(ids.slice(i, i + PARALLEL).map((id) => syncSearchIndex(id)));
    templates += ids.length;
  } while (startKey);
  return { templates };
}

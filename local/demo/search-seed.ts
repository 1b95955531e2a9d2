/**
 * The demo templates indexed for search before `npm start` announces itself, so its banner can say
 * search finds them. Each is synced by the stream indexer's own sync (search-index.ts), four at a
 * time as the indexer runs them, while the rest of the demo data is made; the stream indexer starts
 * after and finds every index already in line with its template (a sync with nothing to move
 * writes nothing), so a publish made after the banner does not wait behind the seed.
 */
import { syncSearchIndex } from '../../lib/marketplace/search/search-index.ts';
import { templateIdOfSlug } from '../../lib/marketplace/templates/store.ts';
import { waitUntilSearchable } from '../search-ready.ts';
import { demoTemplates } from './templates.ts';

/** Templates synced at once, as the stream indexer does (lib/marketplace/search/search-indexer.ts). */
const PARALLEL = 4;
/** How long the check after the syncs may take: it reads the index just written. */
const CHECK_MS = 10_000;

/** Syncs every public demo template's index; true once search finds each of them. */
export async function indexDemoTemplates(): Promise<boolean> {
  const slugs = demoTemplates.filter((t) => t.visibility === 'public').map((t) => t.slug);
  const queue = [...slugs];
  const worker = async () => {
    for (let slug = queue.shift(); slug; slug = queue.shift()) {
      const id = await templateIdOfSlug(slug, true);
      if (id) await syncSearchIndex(id);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return waitUntilSearchable(slugs, CHECK_MS);
}

/**
 * Whether templates are found by search yet (`npm start` says when its demo templates are): the
 * search index follows the catalog through the table's stream (docs/marketplace.md). Asked through
 * the same search the API runs, one slug at a time.
 */
import { searchTemplates } from '../lib/marketplace/search/search.ts';

const POLL_MS = 250;

async function findable(slug: string): Promise<boolean> {
  const page = await searchTemplates({ search: slug.replaceAll('-', ' '), sort: 'recent', limit: 20 });
  return page.data.some((t) => t.slug === slug);
}

/** Resolves true once every slug is found by search, false if `timeoutMs` passes or `cancelled()` first. */
export async function waitUntilSearchable(
  slugs: readonly string[],
  timeoutMs: number,
  cancelled: () => boolean = () => false,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const waiting = new Set(slugs);
  while (waiting.size > 0 && !cancelled()) {
    for (const slug of [...waiting]) if (await findable(slug)) waiting.delete(slug);
    if (waiting.size === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return waiting.size === 0;
}

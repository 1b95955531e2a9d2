/** One page as the iterators need it, whichever envelope the list uses. */
export interface PageOf<T> {
  items: T[];
  nextCursor: string | null | undefined;
}

/**
 * Every item of a cursor-paged list, fetching the next page only when the caller has consumed
 * the current one. `fetchPage(undefined)` reads the first page; each later call gets the
 * previous page's cursor. Ends on a page without a cursor or without items.
 */
export async function* paginate<T>(fetchPage: (cursor: string | undefined) => Promise<PageOf<T>>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.items;
    if (page.items.length === 0) return;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

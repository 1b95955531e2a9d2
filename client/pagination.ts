/** One page as the iterators need it, whichever envelope the list uses. */
export interface PageOf<T> {
  items: T[];
  nextCursor: string | null | undefined;
}

/**
 * Every item of a cursor-paged list, fetching the next page only when the caller has consumed
 * the current one. `fetchPage(undefined)` reads the first page; each later call gets the
 * previous page's cursor. Ends when there is no next cursor, or when it stops moving (the events
 * feed hands back the same cursor to poll from once caught up). An empty page with a new cursor
 * is not the end: a search page can come back empty when the service capped its reads.
 */
export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<PageOf<T>>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.items;
    const next = page.nextCursor ?? undefined;
    if (next === undefined || next === cursor) return;
    cursor = next;
  }
}

/**
 * One page of an index partition for a list route's `limit`/`offset`/`cursor` query: the cursor is
 * tied to `scope` (cursor.ts), so a cursor of one list is a 400 on another.
 */
import { decodeCursor, encodeCursor } from './cursor.ts';
import { indexKeyTypes, readIndexPage } from './index-page.ts';
import type { IndexDefinition } from './table.ts';

export interface PageRequest {
  limit: number;
  offset?: number | undefined;
  cursor?: string | undefined;
}

export async function cursorPage(index: IndexDefinition, partition: string, scope: string, query: PageRequest) {
  const start = query.cursor
    ? decodeCursor(query.cursor, scope, indexKeyTypes(index), { [index.partitionKey]: partition })
    : undefined;
  const offset = start?.position ?? query.offset ?? 0;
  const page = await readIndexPage(index, partition, {
    skip: start ? 0 : offset,
    limit: query.limit,
    startKey: start?.key,
  });
  return {
    entries: page.entries,
    /** The position of the page's first entry (the cursor's, or the offset asked). */
    offset,
    hasMore: page.hasMore,
    next_cursor: page.nextKey ? encodeCursor(scope, page.nextKey, offset + page.entries.length) : null,
  };
}

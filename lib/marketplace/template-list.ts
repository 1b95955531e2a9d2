import { decodeCursor, encodeCursor } from '../store/cursor.ts';
import { indexKeyTypes } from '../store/index-page.ts';
import { isListed, templateIdOf, templateLists } from '../store/keys.ts';
import { INDEXES } from '../store/table.ts';
import type { ListTemplatesQuery } from './request-schemas.ts';
import { searchTemplates } from './search/search.ts';
import type { Category } from './templates/categories.ts';
import { readCategoryCounts, templateListPage, templatesInOrder } from './templates/store.ts';
import { toSummary } from './templates/template-item.ts';

type Sort = 'popular' | 'recent' | 'rating';

const INDEX_FOR = {
  all: { popular: INDEXES.allByPopular, recent: INDEXES.allByRecent, rating: INDEXES.allByRating },
  category: { popular: INDEXES.catByPopular, recent: INDEXES.catByRecent, rating: INDEXES.catByRating },
} as const;

/**
 * GET /templates. Without `search`: the head of one sparse KEYS_ONLY index (chosen by sort and
 * category) and a BatchGet of the page; `total` from the category counters. With `search`: the
 * inverted index (search.ts), in the same sorts.
 */
export async function listTemplates(query: ListTemplatesQuery) {
  if (query.search !== undefined) return searchTemplates({ ...query, search: query.search });
  const sort: Sort = query.sort ?? 'popular';
  const index = query.category ? INDEX_FOR.category[sort] : INDEX_FOR.all[sort];
  const partition = query.category ? templateLists.category(query.category) : templateLists.all;
  const scope = `templates|${sort}|${query.category ?? ''}`;
  const start = query.cursor
    ? decodeCursor(query.cursor, scope, indexKeyTypes(index), { [index.partitionKey]: partition })
    : undefined;
  const offset = start?.position ?? query.offset ?? 0;
  const [page, total] = await Promise.all([
    templateListPage(index, partition, { skip: start ? 0 : offset, limit: query.limit, startKey: start?.key }),
    publicCount(query.category),
  ]);
  const templates = await templatesInOrder(page.keys.map(templateIdOf), isListed);
  return {
    data: templates.map(toSummary),
    pagination: {
      limit: query.limit,
      offset,
      total,
      has_more: page.hasMore,
      next_cursor: page.nextKey ? encodeCursor(scope, page.nextKey, offset + page.keys.length) : null,
    },
  };
}

async function publicCount(category: Category | undefined): Promise<number> {
  const counts = await readCategoryCounts();
  return category ? counts[category] : Object.values(counts).reduce((a, b) => a + b, 0);
}

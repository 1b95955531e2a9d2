import { validationError } from '../http/errors.ts';
import { keys } from '../store/keys.ts';
import type { Category } from './categories.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { walkPostings } from './posting-walk.ts';
import { postingList } from './search-index.ts';
import { drivingPrefix, matchesEveryWord, mayMatch, words } from './search-text.ts';
import { toSummary, type TemplateItem } from './template-item.ts';

const MAX_WORDS = 8;
/**
 * Read units one page may spend walking postings: 5 (about 200 postings of short templates, 40 KB)
 * or a tenth of a unit per match wanted, whichever is more. Bounds multi-word searches.
 */
const MIN_POSTING_UNITS = 5;
const POSTING_UNITS_PER_MATCH = 0.1;
/**
 * Templates one request may read, as a multiple of the matches it needs: only postings without
 * words (long texts) or query words past 6 characters make a candidate that does not match.
 */
const CHECK_FACTOR = 2;

interface SearchQuery {
  search: string;
  category?: Category | undefined;
  limit: number;
  offset?: number | undefined;
  cursor?: string | undefined;
}

const invalid = (path: string, message: string) => validationError([{ path, message }], 'The query string is not valid.');

/**
 * Walks (posting-walk.ts) the posting list of the most selective query word (its longest prefix,
 * up to 6 characters; the category's own list when a category is given), newest first, keeping
 * templates that are public, in the category and match every word. Postings carry their
 * template's words cut to 6 characters, so most non-matches are dropped without a template read.
 * A page stops at offset + limit + 1 matches, after max(5, that / 10) read units of postings or
 * after checking 2 × that templates; a page cut short by a budget still carries next_cursor, so a rare
 * combination of common words is paged through rather than read whole. `total` is exact when the
 * walk reached the end of the list, and null when counting would mean reading it all.
 */
export async function searchTemplates(query: SearchQuery) {
  const queryWords = words(query.search);
  if (queryWords.length === 0) throw invalid('search', 'Give at least one word of letters or digits.');
  if (queryWords.length > MAX_WORDS) throw invalid('search', `Give at most ${MAX_WORDS} words.`);
  const prefix = drivingPrefix(queryWords);
  if (!prefix) throw invalid('search', 'Give at least one word of two or more characters.');
  const partition = keys.searchPostingPk(postingList(prefix, query.category));
  const scope = `search|${query.category ?? ''}|${queryWords.join(' ')}`;
  const start = query.cursor ? decodeCursor(query.cursor, scope, { PK: 'S', SK: 'S' }, { PK: partition }) : undefined;
  const offset = start?.position ?? query.offset ?? 0;
  // A cursor may still owe part of the offset (a page cut short by a budget before reaching it).
  const skip = start ? start.owed : offset;
  const want = skip + query.limit + 1;

  const keep = (t: TemplateItem) => t.visibility === 'public' && (!query.category || t.category === query.category) && matchesEveryWord(queryWords, t);
  const { matches, unread, lastSeen } = await walkPostings({
    partition,
    ...(start ? { start: start.key } : {}),
    want,
    postingUnits: Math.max(MIN_POSTING_UNITS, POSTING_UNITS_PER_MATCH * want),
    checkBudget: CHECK_FACTOR * want,
    mayMatch: (w) => mayMatch(queryWords, w),
    keep,
  });

  const page = matches.slice(skip, skip + query.limit);
  const moreMatches = matches.length > skip + query.limit;
  const resumeAt = moreMatches ? page.at(-1)?.posting : lastSeen;
  const owed = moreMatches ? 0 : Math.max(0, skip - matches.length);
  return {
    data: page.map((m) => toSummary(m.item)),
    pagination: {
      limit: query.limit,
      offset,
      total: unread ? null : offset + matches.length - skip,
      has_more: moreMatches || unread,
      next_cursor: resumeAt && (moreMatches || unread) ? encodeCursor(scope, resumeAt, offset + page.length, owed) : null,
    },
  };
}

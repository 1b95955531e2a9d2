import { validationError } from '../../core/errors.ts';
import { decodeCursor, encodeCursor, type KeyTypes, type StartKey } from '../../store/cursor.ts';
import * as keys from '../../store/key-builders.ts';
import { isListed, type SearchOrder } from '../../store/keys.ts';
import { MAX_SEARCH_OFFSET } from '../request-schemas.ts';
import type { Category } from '../templates/categories.ts';
import { type TemplateItem, toSummary } from '../templates/template-item.ts';
import { bucketLabel, bucketOfSortKey, isRangeBucket } from './popularity-bucket.ts';
import { type WalkMatch, walkPostings } from './posting-walk.ts';
import { postingList } from './search-index.ts';
import {
  countedPrefixOf,
  drivingPrefix,
  indexedPrefixOf,
  MIN_PREFIX,
  matchesEveryWord,
  mayMatch,
  words,
} from './search-text.ts';
import { readCounts } from './store.ts';
import { mayMeet } from './word-pairs.ts';

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
 * A popularity bucket is read whole on top of it (its members are sorted by their installs).
 */
const CHECK_FACTOR = 2;

interface SearchQuery {
  search: string;
  category?: Category | undefined;
  sort?: SearchOrder | undefined;
  limit: number;
  offset?: number | undefined;
  cursor?: string | undefined;
}

const invalid = (path: string, message: string) =>
  validationError([{ path, message }], 'The query string is not valid.');

/** Where a page resumes: below a sort key, and in a popularity bucket after the last template shown. */
interface Resume {
  below: string;
  after?: { installs: number; recent: string };
}

/**
 * The order of each sort, ties broken by `<created_at>#<id>` (recentKey), newest first:
 * popular = installs desc; rating = rating_avg desc, rating_count desc (unrated last); recent.
 * Postings of `popular` are in buckets; `compareInBucket` is the exact order within one.
 */
const compareInBucket = (a: TemplateItem, b: TemplateItem): number =>
  Number(b.installs) - Number(a.installs) || (a.recentKey < b.recentKey ? 1 : a.recentKey > b.recentKey ? -1 : 0);

const groupFor =
  (sort: SearchOrder) =>
  (sortKey: string): string | undefined => {
    if (sort !== 'popular') return undefined;
    const bucket = bucketOfSortKey(sortKey);
    return isRangeBucket(bucket) ? String(bucket) : undefined;
  };

/**
 * Walks (posting-walk.ts) the posting list of the most selective query word (its longest prefix,
 * up to 6 characters; the category's own list when a category is given) in the order asked for,
 * keeping templates that are public, in the category and match every word. Postings carry their
 * template's words cut to 6 characters, so most non-matches are dropped without a template read.
 * A page stops at offset + limit + 1 matches, after max(5, that / 10) read units of postings or
 * after checking 2 × that templates (a popularity bucket is always finished); a page cut short by
 * a budget still carries next_cursor. `total`: the walk's own count when it reached the end of the
 * list, else the prefix counter of a one-word search (exact), else the smallest counter of the
 * query's words, an upper bound, with `total_exact: false`. A multi-word search first asks the word
 * pairs (word-pairs.ts) whether its words can meet at all, and a word's counter whether it is in
 * any template: if not, the answer is empty and exact, without a walk.
 */
export async function searchTemplates(query: SearchQuery) {
  const queryWords = words(query.search);
  if (queryWords.length === 0) throw invalid('search', 'Give at least one word of letters or digits.');
  if (queryWords.length > MAX_WORDS) throw invalid('search', `Give at most ${MAX_WORDS} words.`);
  const prefix = drivingPrefix(queryWords);
  if (!prefix) throw invalid('search', 'Give at least one word of two or more characters.');
  const sort = query.sort ?? 'popular';
  const partition = keys.searchPostingPk(sort, postingList(prefix, query.category));
  const scope = `search|${sort}|${query.category ?? ''}|${queryWords.join(' ')}`;
  const start = query.cursor ? decodeResume(query.cursor, scope, sort) : undefined;
  const offset = start?.position ?? query.offset ?? 0;
  // A cursor may still owe part of the offset (a page cut short by a budget before reaching it).
  const skip = start ? start.owed : offset;
  const want = skip + query.limit + 1;

  const after = start?.resume.after;
  // A page that ended inside a bucket resumes below the bucket above it (see resumeAfter).
  const resumeGroup = after ? String(Number(start!.resume.below) - 1) : undefined;
  const shownAlready = (t: TemplateItem, sortKey: string) =>
    after !== undefined &&
    groupFor(sort)(sortKey) === resumeGroup &&
    (Number(t.installs) > after.installs || (Number(t.installs) === after.installs && t.recentKey >= after.recent));
  const keep = (t: TemplateItem, sortKey: string) =>
    isListed(t) &&
    (!query.category || t.category === query.category) &&
    matchesEveryWord(queryWords, t) &&
    !shownAlready(t, sortKey);

  const counted = queryWords.filter((w) => w.length >= MIN_PREFIX).map(countedPrefixOf);
  const countsRead = readCounts(counted.map((c) => postingList(c.prefix, query.category)));
  const countOf = (c: { prefix: string }, counts: Map<string, number>) =>
    counts.get(postingList(c.prefix, query.category)) ?? 0;
  // A word no public template has (its counter is exact and 0): nothing can match, however long the list.
  const noneHas = (counts: Map<string, number>) => counted.some((c) => c.exact && countOf(c, counts) === 0);
  const nothing = {
    data: [],
    pagination: { limit: query.limit, offset, total: 0, has_more: false, next_cursor: null },
  };
  const driving = queryWords.find((w) => indexedPrefixOf(w) === prefix)!;
  const others = queryWords.filter((w) => w !== driving);
  if (others.length > 0) {
    // Before the walk, which would cost its whole budget to find nothing in a large catalog.
    const [meet, counts] = await Promise.all([mayMeet(prefix, others, queryWords), countsRead]);
    if (!meet || noneHas(counts)) return nothing;
  }
  const [walk, counts] = await Promise.all([
    walkPostings({
      partition,
      ...(start ? { below: start.resume.below } : {}),
      want,
      postingUnits: Math.max(MIN_POSTING_UNITS, POSTING_UNITS_PER_MATCH * want),
      checkBudget: CHECK_FACTOR * want,
      groupOf: groupFor(sort),
      mayMatch: (w) => mayMatch(queryWords, w),
      keep,
    }),
    countsRead,
  ]);
  const matches = inExactOrder(walk.matches);
  if (matches.length === 0 && noneHas(counts)) return nothing;

  const page = matches.slice(skip, skip + query.limit);
  const moreMatches = matches.length > skip + query.limit;
  const last = page.at(-1);
  const resume: Resume | undefined =
    moreMatches && last ? resumeAfter(last) : walk.unread && walk.lastSeen ? { below: walk.lastSeen } : undefined;
  const owed = moreMatches ? 0 : Math.max(0, skip - matches.length);
  const seen = offset + matches.length - skip;
  const bound = Math.min(...counted.map((c) => countOf(c, counts)));
  const exact = !walk.unread || (queryWords.length === 1 && counted[0]!.exact);
  return {
    data: page.map((m) => toSummary(m.item)),
    pagination: {
      limit: query.limit,
      offset,
      total: !walk.unread ? seen : Math.max(bound, offset + page.length + (moreMatches ? 1 : 0)),
      ...(exact ? {} : { total_exact: false as const }),
      has_more: moreMatches || walk.unread,
      next_cursor: resume ? encodeResume(scope, sort, resume, offset + page.length, owed) : null,
    },
  };
}

/** Posting order, with each popularity bucket's members sorted by their current installs. */
function inExactOrder(matches: WalkMatch[]): WalkMatch[] {
  const out: WalkMatch[] = [];
  for (let i = 0; i < matches.length; ) {
    let j = i + 1;
    while (matches[i]!.group !== undefined && j < matches.length && matches[j]!.group === matches[i]!.group) j++;
    out.push(...matches.slice(i, j).sort((a, b) => compareInBucket(a.item, b.item)));
    i = j;
  }
  return out;
}

function resumeAfter(last: WalkMatch): Resume {
  if (last.group === undefined) return { below: last.sortKey };
  // Within a bucket the order is by installs, not by posting: read the bucket again, past `last`.
  return {
    below: bucketLabel(bucketOfSortKey(last.sortKey) + 1),
    after: { installs: Number(last.item.installs), recent: last.item.recentKey },
  };
}

const NO_AFTER = { AI: -1, AR: '-' };
const cursorKeyTypes = (sort: SearchOrder): KeyTypes =>
  sort === 'popular' ? { SK: 'S', AI: 'N', AR: 'S' } : { SK: 'S' };

function encodeResume(scope: string, sort: SearchOrder, resume: Resume, position: number, owed: number): string {
  const key: StartKey = { SK: resume.below };
  if (sort === 'popular')
    Object.assign(key, resume.after ? { AI: resume.after.installs, AR: resume.after.recent } : NO_AFTER);
  return encodeCursor(scope, key, position, owed);
}

function decodeResume(
  cursor: string,
  scope: string,
  sort: SearchOrder,
): { resume: Resume; position: number; owed: number } {
  // A real cursor owes at most the offset it skipped, which search caps at MAX_SEARCH_OFFSET; a
  // forged one owing MAX_OFFSET bought back the 20,202 reads that cap exists to refuse.
  const { key, position, owed } = decodeCursor(cursor, scope, cursorKeyTypes(sort), {}, MAX_SEARCH_OFFSET);
  const below = key['SK'] as string;
  const hasAfter = sort === 'popular' && key['AI'] !== NO_AFTER.AI;
  if (hasAfter && (!/^\d+$/.test(below) || (key['AI'] as number) < 0)) {
    throw validationError(
      [{ path: 'cursor', message: 'Not a cursor from this API.' }],
      'The query string is not valid.',
    );
  }
  return {
    resume: { below, ...(hasAfter ? { after: { installs: key['AI'] as number, recent: key['AR'] as string } } : {}) },
    position,
    owed,
  };
}

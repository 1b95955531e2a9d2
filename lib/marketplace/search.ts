import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { validationError } from '../http/errors.ts';
import { db, tableName } from '../store/client.ts';
import { keys } from '../store/keys.ts';
import type { Category } from './categories.ts';
import { decodeCursor, encodeCursor, type StartKey } from './cursor.ts';
import { templatesInOrder } from './index-page.ts';
import { postingList } from './search-index.ts';
import { drivingPrefix, matchesEveryWord, mayMatch, words } from './search-text.ts';
import { toSummary, type TemplateItem } from './template-item.ts';

const MAX_WORDS = 8;
/** Posting entries one request may read beyond the page it needs: bounds multi-word searches. */
const MIN_BUDGET = 200;
const BUDGET_FACTOR = 4;
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

type Posting = Record<string, unknown>;
const postingKey = (p: Posting): StartKey => ({ PK: p['PK'] as string, SK: p['SK'] as string });

const invalid = (path: string, message: string) => validationError([{ path, message }], 'The query string is not valid.');

/**
 * Walks the posting list of the most selective query word (its longest prefix, up to 6
 * characters; the category's own list when a category is given), newest first. Each posting
 * carries its template's words cut to 6 characters, so postings that cannot match every word are
 * dropped unread; the templates of the rest are read, no more than the page still needs, and kept
 * when public, in the category and matching every word. Reads stop at the page (offset + limit + 1
 * matches), at a budget of max(200, 4 × that) postings, or after checking 2 × that templates; a
 * page cut short by a budget still carries next_cursor, so a rare combination of common words is
 * paged through rather than read whole. `total` is exact when
 * the walk reached the end of the list, and null when counting would mean reading it all.
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
  const skip = start ? 0 : offset;
  const want = skip + query.limit + 1;
  const budget = Math.max(MIN_BUDGET, BUDGET_FACTOR * want);
  const checkBudget = CHECK_FACTOR * want;

  const keep = (t: TemplateItem) => t.visibility === 'public' && (!query.category || t.category === query.category) && matchesEveryWord(queryWords, t);
  const matches: { item: TemplateItem; posting: StartKey }[] = [];
  let unseen: Posting[] = [];
  let next: Record<string, unknown> | undefined = start?.key;
  let ended = false;
  let lastSeen: StartKey | undefined = start?.key;
  let read = 0;
  let checked = 0;
  while (matches.length < want && checked < checkBudget) {
    if (unseen.length === 0) {
      if (ended || read >= budget) break;
      // Size the page from the share of postings that matched so far: postings are cheap, round trips are not.
      const perPosting = read === 0 ? 1 : Math.max(matches.length, 1) / read;
      const res = await db().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': partition },
          ScanIndexForward: false,
          Limit: Math.min(100, budget - read, Math.ceil((want - matches.length) / perPosting)),
          ExclusiveStartKey: next,
        }),
      );
      unseen = res.Items ?? [];
      read += unseen.length;
      next = res.LastEvaluatedKey;
      ended = next === undefined;
      continue;
    }
    // Take postings in order until there are as many candidates as matches still missing, so no
    // template is read past the page; the walk resumes right after the last posting taken.
    const candidates: Posting[] = [];
    let taken = 0;
    const room = Math.min(want - matches.length, checkBudget - checked);
    while (taken < unseen.length && candidates.length < room) {
      const p = unseen[taken++]!;
      if (typeof p['w'] !== 'string' || mayMatch(queryWords, p['w'])) candidates.push(p);
    }
    lastSeen = postingKey(unseen[taken - 1]!);
    unseen = unseen.slice(taken);
    checked += candidates.length;
    const byId = new Map(candidates.map((p) => [p['template_id'] as string, postingKey(p)]));
    for (const item of await templatesInOrder([...byId.keys()], keep)) matches.push({ item, posting: byId.get(item.id)! });
  }

  const page = matches.slice(skip, skip + query.limit);
  const moreMatches = matches.length > skip + query.limit;
  const unread = unseen.length > 0 || !ended;
  const resumeAt = moreMatches ? page.at(-1)?.posting : lastSeen;
  return {
    data: page.map((m) => toSummary(m.item)),
    pagination: {
      limit: query.limit,
      offset,
      total: unread ? null : offset + matches.length - skip,
      has_more: moreMatches || unread,
      next_cursor: resumeAt && (moreMatches || unread) ? encodeCursor(scope, resumeAt, offset + page.length) : null,
    },
  };
}

/**
 * The inverted index, kept by the search indexer (search-indexer.ts) from the table's stream:
 *
 * - a posting per (word prefix list, public template) in each of three orders: `recent`
 *   (`<created_at>#<id>`), `popular` (`<installs bucket>#<created_at>#<id>`, popularity-bucket.ts)
 *   and `rating` (`<ratingKey>#<created_at>#<id>`); each carries the template's words cut to 6
 *   characters (`w`, see postingWords) so most non-matches are dropped without a template read;
 * - a counter per word prefix of 2–16 characters (exact totals of one-word searches);
 * - word pairs (word-pairs.ts): per (indexed prefix, word cut) of a public template, so a search of
 *   words that never meet answers in one read;
 * - a state item per template (`TPL#<id>` / `SEARCH`) recording what has been written for it.
 *
 * Every sync reads the template as it is now (strongly consistent) and moves the index from the
 * recorded state to it, so records arriving twice, late or out of order change nothing: the last
 * sync leaves the index matching the template. A sync that dies halfway has first recorded every
 * posting it may write (`dirty`), so the next one deletes whatever is no longer wanted; counters
 * move in transactions with the state's list of what is counted, so each is applied exactly once.
 */
import { InvariantError } from '../../core/errors.ts';
import type { WriteRequest } from '../../store/batch.ts';
import { tableName } from '../../store/client.ts';
import * as keys from '../../store/key-builders.ts';
import { ENTITY, isListed, type Key, type SearchOrder } from '../../store/keys.ts';
import type { TransactItem } from '../../store/transact.ts';
import type { TemplateItem } from '../templates/template-item.ts';
import { bucketLabel, popularityBucket } from './popularity-bucket.ts';
import { countedPrefixes, indexedPrefixes, postingWords } from './search-text.ts';
import { commitCounterChanges, readConsistent, updateIndexState, writePostings } from './store.ts';
import { PAIRS_FORMAT, type PairTrace, pairItems, pairKeysMayExist, pairSource, pairTrace } from './word-pairs.ts';

export const ORDERS: readonly SearchOrder[] = ['recent', 'popular', 'rating'];

/**
 * Each prefix has a list over the whole catalog and one per category (`<category>/<prefix>`), so a
 * search within a category walks postings that are all in it instead of filtering them out.
 */
export const postingList = (prefix: string, category?: string): string => (category ? `${category}/${prefix}` : prefix);

const inBothLists = (prefixes: Set<string>, category: string): string[] =>
  [...prefixes].flatMap((p) => [postingList(p), postingList(p, category)]);

/**
 * What the index holds for a template: nothing unless it is public. `format` 2 has word pairs; a
 * state written before them (no format) gets them at its next sync (`npm run admin -- reindex-search`).
 */
export interface Indexed {
  recent: string;
  lists: string[];
  w: string | null;
  pop: number;
  rating: string;
  format?: number;
}

export const INDEX_FORMAT = PAIRS_FORMAT;

type Searchable = Pick<
  TemplateItem,
  | 'id'
  | 'visibility'
  | 'hidden'
  | 'all_yanked'
  | 'category'
  | 'name'
  | 'slug'
  | 'description'
  | 'recentKey'
  | 'installs'
  | 'ratingKey'
>;

export function indexedState(t: Searchable): Indexed {
  const isPublic = isListed(t);
  return {
    recent: t.recentKey,
    lists: isPublic ? inBothLists(indexedPrefixes(t), t.category) : [],
    w: isPublic ? (postingWords(t) ?? null) : null,
    pop: popularityBucket(Number(t.installs ?? 0)),
    rating: t.ratingKey,
    format: INDEX_FORMAT,
  };
}

export const countedLists = (t: Searchable): string[] =>
  isListed(t) ? inBothLists(countedPrefixes(t), t.category) : [];

const sortKey = (order: SearchOrder, state: Pick<Indexed, 'recent' | 'pop' | 'rating'>): string =>
  order === 'recent'
    ? state.recent
    : order === 'popular'
      ? `${bucketLabel(state.pop)}#${state.recent}`
      : `${state.rating}#${state.recent}`;

const posting = (order: SearchOrder, list: string, templateId: string, state: Indexed) => ({
  ...keys.searchPosting(order, list, sortKey(order, state)),
  entity: ENTITY.searchPosting,
  template_id: templateId,
  ...(state.w === null ? {} : { w: state.w }),
});

/** Every index item of one template, as a sync from nothing would write them (the benchmark seeds with these). */
export function searchIndexItems(t: Searchable): {
  postings: Record<string, unknown>[];
  pairs: Record<string, unknown>[];
  state: Record<string, unknown>;
  counted: string[];
} {
  const want = indexedState(t);
  const counted = countedLists(t);
  return {
    postings: ORDERS.flatMap((order) => want.lists.map((list) => posting(order, list, t.id, want))),
    pairs: pairItems(t.id, want),
    state: { ...keys.searchState(t.id), entity: ENTITY.searchState, template_id: t.id, ver: 1, cur: want, counted },
    counted,
  };
}

interface Dirty {
  lists: string[];
  pop: number[];
  rating: string[];
  /** Present when the sync may have moved word pairs (absent too in a record written before pairs existed). */
  pairs?: PairTrace;
}

/** Two records of what may have been written, as one. */
function mergeDirty(a: Dirty | undefined, b: Dirty): Dirty {
  if (!a) return b;
  const pairs =
    a.pairs && b.pairs
      ? pairTrace([], { cuts: [...a.pairs.cuts, ...b.pairs.cuts], wide: a.pairs.wide || b.pairs.wide })
      : (a.pairs ?? b.pairs);
  return {
    lists: unique([...a.lists, ...b.lists]),
    pop: unique([...a.pop, ...b.pop]),
    rating: unique([...a.rating, ...b.rating]),
    ...(pairs ? { pairs } : {}),
  };
}

interface SearchState {
  ver: number;
  cur?: Indexed;
  dirty?: Dirty;
  counted?: string[];
}

export interface SyncOptions {
  /** Writes postings (tests pass one that dies halfway, as a crashed indexer would). */
  write?: (requests: WriteRequest[]) => Promise<void>;
}

const MAX_ROUNDS = 5;
/** TransactWriteItems takes 100 actions: the state item and 99 counters. */
const COUNTERS_PER_TRANSACTION = 99;

/**
 * Brings the index of one template in line with the template as it is now. The stream hands one
 * template's records to one sync at a time, but `admin reindex-search` may sync it at the same
 * moment: a round that wrote and then lost its state's version to another sync may have undone
 * that sync's writes, so the next round takes what it wrote as unsettled and writes everything again.
 */
export async function syncSearchIndex(templateId: string, options: SyncOptions = {}): Promise<void> {
  let unsettled: Dirty | undefined;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const [template, state] = await Promise.all([
      readConsistent(keys.template(templateId)),
      readConsistent(keys.searchState(templateId)),
    ]);
    if (!template && !state) return;
    const t = template as TemplateItem | undefined;
    const read: SearchState = (state as SearchState | undefined) ?? { ver: 0 };
    const have: SearchState = unsettled ? { ...read, dirty: mergeDirty(read.dirty, unsettled) } : read;
    const want = t ? indexedState(t) : undefined;
    const moved = await syncPostings(templateId, have, want, options.write ?? writePostings);
    if ('unsettled' in moved) unsettled = moved.unsettled;
    if (moved.ver === undefined) continue;
    unsettled = undefined;
    if (await syncCounts(templateId, moved.ver, new Set(have.counted ?? []), new Set(t ? countedLists(t) : []))) return;
  }
  throw new InvariantError(`search index of ${templateId}: the template kept changing during ${MAX_ROUNDS} syncs`);
}

/** Same postings and pairs: same lists and, when there are any, the same words, sort keys and format. */
function samePostings(a: Indexed | undefined, b: Indexed | undefined): boolean {
  const lists = (s: Indexed | undefined) => [...(s?.lists ?? [])].sort().join();
  if (lists(a) !== lists(b)) return false;
  return !a?.lists.length || (a.w === b?.w && a.pop === b?.pop && a.rating === b?.rating && a.format === b?.format);
}

const keyOf = (k: Key): string => `${k.PK}|${k.SK}`;

const unique = <T>(values: T[]): T[] => [...new Set(values)];

/**
 * The state's new version; no version when another sync changed the state first (start over), and
 * then what this one wrote, if anything, as `unsettled`.
 */
async function syncPostings(
  templateId: string,
  have: SearchState,
  want: Indexed | undefined,
  write: (r: WriteRequest[]) => Promise<void>,
): Promise<{ ver?: number; unsettled?: Dirty }> {
  const recent = want?.recent ?? have.cur?.recent;
  if (!recent) return { ver: have.ver }; // never indexed and nothing to index
  const target: Indexed = want ?? { recent, lists: [], w: null, pop: 0, rating: '', format: INDEX_FORMAT };
  if (!have.dirty && samePostings(have.cur ?? { ...target, lists: [] }, target)) return { ver: have.ver };
  const pairsMove =
    have.dirty?.pairs !== undefined || have.cur?.format !== INDEX_FORMAT || pairSource(have.cur) !== pairSource(target);
  // 1. Record everything this sync may leave behind before writing any of it.
  const dirty: Dirty = {
    lists: unique([...(have.cur?.lists ?? []), ...(have.dirty?.lists ?? []), ...target.lists]),
    pop: unique([have.cur?.pop, ...(have.dirty?.pop ?? []), target.pop].filter((p): p is number => p !== undefined)),
    rating: unique(
      [have.cur?.rating, ...(have.dirty?.rating ?? []), target.rating].filter(
        (r): r is string => r !== undefined && r !== '',
      ),
    ),
    ...(pairsMove ? { pairs: pairTrace(have.cur ? [have.cur, target] : [target], have.dirty?.pairs) } : {}),
  };
  if (!(await putState(templateId, have.ver, { dirty }))) return {};
  // 2. Put what is wanted (all of it after an interrupted sync), delete every other posting that may exist.
  const wanted = new Set<string>();
  const requests: WriteRequest[] = [];
  const cur = have.dirty ? undefined : have.cur;
  for (const order of ORDERS) {
    for (const list of target.lists) {
      const item = posting(order, list, templateId, target);
      wanted.add(keyOf(item));
      const unchanged =
        cur?.lists.includes(list) && cur.w === target.w && sortKey(order, cur) === sortKey(order, target);
      if (!unchanged) requests.push({ put: item });
    }
  }
  for (const list of dirty.lists) {
    const candidates: Key[] = [
      keys.searchPosting('recent', list, recent),
      ...dirty.pop.map((pop) => keys.searchPosting('popular', list, sortKey('popular', { recent, pop, rating: '' }))),
      ...dirty.rating.map((rating) =>
        keys.searchPosting('rating', list, sortKey('rating', { recent, pop: 0, rating })),
      ),
    ];
    for (const key of candidates) if (!wanted.has(keyOf(key))) requests.push({ delete: key });
  }
  // Pairs: after an interrupted sync that may have moved them, every pair its record allows may
  // exist; otherwise exactly those of the last clean state (none before the pairs' format).
  const interrupted = have.dirty?.pairs;
  const pairsNow = interrupted
    ? pairKeysMayExist(templateId, dirty.lists, interrupted)
    : have.cur?.format === INDEX_FORMAT
      ? pairItems(templateId, have.cur)
      : [];
  // A wide marker carries its template's words: one whose words changed under the same key is put again.
  const asWritten = (i: Key & { w?: unknown }) => `${keyOf(i)}|${i.w ?? ''}`;
  const existing = new Set(pairsNow.map(asWritten));
  const wantedPairs = new Set<string>();
  const pairPuts: WriteRequest[] = [];
  for (const item of pairItems(templateId, target)) {
    wantedPairs.add(keyOf(item));
    if (interrupted || !existing.has(asWritten(item))) pairPuts.push({ put: item });
  }
  for (const key of pairsNow) if (!wantedPairs.has(keyOf(key))) requests.push({ delete: { PK: key.PK, SK: key.SK } });
  // Pairs before postings: a template a walk can find while its pairs say "never together" would be hidden.
  if (pairPuts.length) await write(pairPuts);
  if (requests.length) await write(requests);
  // 3. Clean: the postings are exactly `want`.
  if (await putState(templateId, have.ver + 1, { cur: target })) return { ver: have.ver + 2 };
  return pairPuts.length || requests.length ? { unsettled: dirty } : {};
}

async function syncCounts(
  templateId: string,
  ver: number,
  counted: Set<string>,
  wanted: Set<string>,
): Promise<boolean> {
  const changes = [
    ...[...wanted].filter((l) => !counted.has(l)).map((list) => ({ list, by: 1 })),
    ...[...counted].filter((l) => !wanted.has(l)).map((list) => ({ list, by: -1 })),
  ];
  for (let i = 0; i < changes.length; i += COUNTERS_PER_TRANSACTION) {
    const chunk = changes.slice(i, i + COUNTERS_PER_TRANSACTION);
    for (const { list, by } of chunk) by > 0 ? counted.add(list) : counted.delete(list);
    const result = await commitCounterChanges(stateUpdate(templateId, ver, { counted: [...counted] }), chunk);
    if (!result.ok) return false;
    ver++;
  }
  return true;
}

function stateUpdate(
  templateId: string,
  ver: number,
  set: { dirty?: Dirty; cur?: Indexed; counted?: string[] },
): TransactItem {
  const names: Record<string, string> = { '#ver': 'ver' };
  const values: Record<string, unknown> = {
    ...(ver === 0 ? {} : { ':ver': ver }),
    ':next': ver + 1,
    ':entity': ENTITY.searchState,
    ':id': templateId,
  };
  const sets = ['#ver = :next', 'entity = :entity', 'template_id = :id'];
  for (const [name, value] of Object.entries(set)) {
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    sets.push(`#${name} = :${name}`);
  }
  // A clean state drops the record of what an interrupted sync may have written.
  const remove = set.cur ? ' REMOVE dirty' : '';
  return {
    Update: {
      TableName: tableName(),
      Key: keys.searchState(templateId),
      UpdateExpression: `SET ${sets.join(', ')}${remove}`,
      ConditionExpression: ver === 0 ? 'attribute_not_exists(#ver)' : '#ver = :ver',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

const putState = (templateId: string, ver: number, set: { dirty?: Dirty; cur?: Indexed }): Promise<boolean> =>
  updateIndexState(stateUpdate(templateId, ver, set).Update!);

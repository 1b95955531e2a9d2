/**
 * "Never together" in one read. Two words that no template holds together would otherwise cost a
 * walk of the driving word's posting list to its end or to the walk's budget: little in a small
 * catalog, the whole budget in a large one. So the indexer keeps, per public template, an item for
 * every (indexed prefix of one of its words, one of its words cut to 6 characters), self pairs
 * included ("up uptime"). A template has a word starting with the query's driving prefix and a
 * word starting with another query word only if the driving prefix's pair partition holds a key
 * starting with that word's cut: one Query of at most one item per other query word.
 *
 * A template of more than PAIR_CUTS_MAX word cuts (or with words too long to ride on its postings)
 * would cost prefixes × cuts writes, quadratic in its text: it gets a wide marker per prefix
 * instead, carrying its word cuts when they fit on a posting. A search reads up to WIDE_CHECKED
 * wide markers of its driving prefix and rules out those whose cuts miss a query word; one it
 * cannot rule out (no cuts, or more markers than that) makes it walk its list as before. Pair items are
 * written only when a template's words or visibility change (or to repair a sync that was cut short).
 *
 * The pairs are trusted only once the catalog's index format says every public template has them
 * (PAIRS_FORMAT, recorded by `npm run admin -- reindex-search`): right after a deploy that adds them,
 * templates indexed before have none, and "never together" would hide them.
 */

import * as keys from '../../store/key-builders.ts';
import { ENTITY, type Key } from '../../store/keys.ts';
import { MAX_PREFIX, mayMatch } from './search-text.ts';
import { hasItem, readIndexFormat, readPostingPage } from './store.ts';

/** The index format (search-index.ts, Indexed.format) from which templates have pair items. */
export const PAIRS_FORMAT = 2;

/** At most 24 × 3 prefixes × 24 cuts = 1,728 pair items per template; 403 for a three-word name and slug, a six-word sentence and a category. */
export const PAIR_CUTS_MAX = 24;

/** What pairs are made of: a template's posting lists and its postings' words (search-index.ts, Indexed). */
export interface PairSource {
  lists: readonly string[];
  w: string | null;
}

/** The catalog-wide lists are the bare prefixes; a category's are `<category>/<prefix>`. */
const prefixesOf = (lists: readonly string[]): string[] => lists.filter((l) => !l.includes('/'));

/** The word cuts of a template that gets pair items, undefined for a wide one. */
function cutsOf(s: PairSource): string[] | undefined {
  if (s.w === null) return undefined;
  const cuts = s.w.split(' ');
  return cuts.length <= PAIR_CUTS_MAX ? cuts : undefined;
}

const pair = (p: string, c: string, templateId: string) => ({
  ...keys.searchPair(p, c, templateId),
  entity: ENTITY.searchPair,
  template_id: templateId,
});
const wide = (p: string, templateId: string, w: string | null) => ({
  ...keys.searchWide(p, templateId),
  entity: ENTITY.searchWide,
  template_id: templateId,
  ...(w === null ? {} : { w }),
});

/** Every pair or wide item of a template in state `s` (none unless it is public). */
export function pairItems(templateId: string, s: PairSource): (Key & Record<string, unknown>)[] {
  const prefixes = prefixesOf(s.lists);
  const cuts = cutsOf(s);
  return cuts
    ? prefixes.flatMap((p) => cuts.map((c) => pair(p, c, templateId)))
    : prefixes.map((p) => wide(p, templateId, s.w));
}

/** What the pairs of a state are made of: equal keys, equal pairs. */
export const pairSource = (s: PairSource | undefined): string => {
  const prefixes = s ? prefixesOf(s.lists) : [];
  return prefixes.length ? `${[...prefixes].sort().join(' ')}|${s!.w}` : '';
};

/** What a sync records before writing, so a later one can delete what it may have left: the cuts of the states with pairs, and whether any was wide. */
export interface PairTrace {
  cuts: string[];
  wide: boolean;
}

export function pairTrace(states: readonly PairSource[], earlier?: PairTrace): PairTrace {
  const cuts = new Set(earlier?.cuts ?? []);
  let wide = earlier?.wide ?? false;
  for (const s of states) {
    if (prefixesOf(s.lists).length === 0) continue;
    const own = cutsOf(s);
    if (own) for (const c of own) cuts.add(c);
    else wide = true;
  }
  return { cuts: [...cuts], wide };
}

/** Every pair or wide item an interrupted sync may have left, given the lists it recorded and its trace. */
export function pairKeysMayExist(templateId: string, lists: readonly string[], trace: PairTrace): Key[] {
  const prefixes = prefixesOf(lists);
  return [
    ...prefixes.flatMap((p) => trace.cuts.map((c) => keys.searchPair(p, c, templateId))),
    ...(trace.wide ? prefixes.map((p) => keys.searchWide(p, templateId)) : []),
  ];
}

/** Wide markers of one prefix a search checks on their cuts (20 of about 450 bytes: 2.5 read units at most); past this many it walks. */
const WIDE_CHECKED = 20;

/**
 * False when no public template has a word starting with `prefix` together with a word starting
 * with each of `others` (the search for `words` then has no match: its answer is empty, exactly);
 * true when some may.
 */
export async function mayMeet(prefix: string, others: readonly string[], words: readonly string[]): Promise<boolean> {
  const [format, wide, ...pairs] = await Promise.all([
    readIndexFormat(),
    readPostingPage(keys.searchWidePk(prefix), undefined, WIDE_CHECKED, undefined),
    ...others.map((q) => hasItem(keys.searchPairPk(prefix), q.slice(0, MAX_PREFIX))),
  ]);
  const wideMayMatch =
    wide.next !== undefined || wide.items.some((m) => typeof m['w'] !== 'string' || mayMatch(words, m['w']));
  return format < PAIRS_FORMAT || wideMayMatch || pairs.every(Boolean);
}

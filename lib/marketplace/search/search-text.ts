/**
 * Words for search: lower case, accents folded, split on anything that is not a letter or digit.
 * A template is indexed under the 2-, 4- and 6-character prefixes of its words (name, slug,
 * description, category): three postings per word instead of five, at the price of walking a
 * shorter prefix's list for 3- and 5-letter query words. Every hit is confirmed against the
 * template's own words, so the shorter list only costs reads, never precision.
 */
export const PREFIX_LENGTHS = [2, 4, 6] as const;
export const MIN_PREFIX = PREFIX_LENGTHS[0];
export const MAX_PREFIX = PREFIX_LENGTHS[PREFIX_LENGTHS.length - 1]!;

/** The longest indexed prefix of a word (undefined for a one-character word). */
export function indexedPrefixOf(word: string): string | undefined {
  const length = [...PREFIX_LENGTHS].reverse().find((n) => word.length >= n);
  return length === undefined ? undefined : word.slice(0, length);
}

export function words(text: string): string[] {
  const folded = text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  return [...new Set(folded.split(/[^\p{L}\p{N}]+/u).filter(Boolean))];
}

interface Searchable {
  name: string;
  slug: string;
  description: string;
  category: string;
}

export const templateWords = (t: Searchable): string[] => words(`${t.name} ${t.slug} ${t.description} ${t.category}`);

export function indexedPrefixes(t: Searchable): Set<string> {
  const prefixes = new Set<string>();
  for (const word of templateWords(t)) {
    for (const n of PREFIX_LENGTHS) if (word.length >= n) prefixes.add(word.slice(0, n));
  }
  return prefixes;
}

/**
 * Exact totals: a counter per word prefix of 2 to COUNTED_PREFIX_MAX characters (every length, not
 * only the indexed ones), so a one-word search of up to 16 characters answers its total from one
 * counter. A longer query word is counted by its first 16 characters: an upper bound.
 */
export const COUNTED_PREFIX_MAX = 16;

export function countedPrefixes(t: Searchable): Set<string> {
  const prefixes = new Set<string>();
  for (const word of templateWords(t)) {
    for (let n = MIN_PREFIX; n <= Math.min(word.length, COUNTED_PREFIX_MAX); n++) prefixes.add(word.slice(0, n));
  }
  return prefixes;
}

/** The counter a query word is counted by, and whether that count is exact for it. */
export const countedPrefixOf = (word: string): { prefix: string; exact: boolean } => ({
  prefix: word.slice(0, COUNTED_PREFIX_MAX),
  exact: word.length <= COUNTED_PREFIX_MAX,
});

/**
 * What a posting carries of its template's text, so a multi-word search can drop most non-matches
 * without reading the templates: the template's words cut to MAX_PREFIX characters, space-separated.
 * For query words of up to MAX_PREFIX characters the test on them is exact; for longer ones it is
 * necessary only, and the template item confirms. Left out (undefined) past POSTING_WORDS_MAX
 * bytes (about 60 words; bytes, not characters: a CJK character takes 3), which keeps every posting
 * near half a kilobyte at most, so a walk's read units buy many postings; such a template is
 * checked on its item instead, as all were before.
 */
export const POSTING_WORDS_MAX = 400;

export function postingWords(t: Searchable): string | undefined {
  const cut = [...new Set(templateWords(t).map((w) => w.slice(0, MAX_PREFIX)))].join(' ');
  return Buffer.byteLength(cut) <= POSTING_WORDS_MAX ? cut : undefined;
}

/** False only when the template whose posting carries `cut` cannot match every query word. */
export function mayMatch(queryWords: readonly string[], cut: string): boolean {
  const own = cut.split(' ');
  return queryWords.every((q) => {
    const head = q.slice(0, MAX_PREFIX);
    return own.some((w) => w.startsWith(head));
  });
}

/** Every query word is a prefix of some word of the template. */
export function matchesEveryWord(queryWords: readonly string[], t: Searchable): boolean {
  const own = templateWords(t);
  return queryWords.every((q) => own.some((w) => w.startsWith(q)));
}

/**
 * The posting list to walk: the longest indexed prefix among the query words, the best available
 * guess at the rarest. Undefined when every word is a single character (not indexed).
 */
export function drivingPrefix(queryWords: readonly string[]): string | undefined {
  const prefixes = queryWords.map(indexedPrefixOf).filter((p): p is string => p !== undefined);
  return prefixes.sort((a, b) => b.length - a.length)[0];
}

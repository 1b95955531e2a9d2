/**
 * Words for search: lower case, accents folded, split on anything that is not a letter or digit.
 * A template is indexed under the 2- to 6-character prefixes of its words (name, slug,
 * description, category); a query word longer than 6 is looked up by its first 6 characters and
 * confirmed against the template's own words.
 */
export const MIN_PREFIX = 2;
export const MAX_PREFIX = 6;

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
    for (let n = MIN_PREFIX; n <= Math.min(word.length, MAX_PREFIX); n++) prefixes.add(word.slice(0, n));
  }
  return prefixes;
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
  const best = [...queryWords].filter((w) => w.length >= MIN_PREFIX).sort((a, b) => Math.min(b.length, MAX_PREFIX) - Math.min(a.length, MAX_PREFIX) || b.length - a.length)[0];
  return best?.slice(0, MAX_PREFIX);
}

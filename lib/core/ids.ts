/**
 * Ids of the `agt_` / `ctr_` / `evt_` / `dlv_` kinds: the prefix, a 10-character sort value and 16
 * random characters, all from a URL-safe alphabet whose order matches ASCII order. The sort value
 * is the millisecond time for most kinds; for events it is the agent's feed position
 * (lib/events/feed/position.ts), so an event id doubles as a feed cursor.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; // Crockford base32: ASCII-ordered, no I L O U
const SORT_CHARS = 10;

export type IdPrefix = 'agt' | 'ctr' | 'evt' | 'dlv' | 'dst';

let lastTime = -1;
let lastRandom: number[] = [];

/**
 * Ids chosen ahead, for the local demo seed only: the samples in events/ name the demo agents,
 * contracts and templates, so the seed makes them through the real handlers inside
 * `withPinnedIds` and each new id of a kind is the next pinned one of that kind. Nothing else
 * opens this scope (never in Lambda): there every id is new.
 */
const pinned = new AsyncLocalStorage<string[]>();

export const withPinnedIds = <T>(ids: readonly string[], fn: () => Promise<T>): Promise<T> => pinned.run([...ids], fn);

function takePinned(fits: (id: string) => boolean): string | undefined {
  const queue = pinned.getStore();
  const at = queue?.findIndex(fits) ?? -1;
  return at < 0 ? undefined : queue!.splice(at, 1)[0];
}

/** Monotonic within one process: two ids made in the same millisecond still sort in creation order. */
export function newId(prefix: IdPrefix, now = Date.now()): string {
  const chosen = takePinned((id) => ID_PATTERN[prefix].test(id));
  if (chosen) return chosen;
  let random: number[];
  if (now <= lastTime) {
    random = increment(lastRandom);
    now = lastTime;
  } else {
    random = [...randomBytes(16)].map((b) => b % 32);
  }
  lastTime = now;
  lastRandom = random;
  return `${sortablePrefix(prefix, now)}${random.map((d) => ALPHABET[d]).join('')}`;
}

/** `<prefix>_` and the 10-character encoding of `sortValue` (0 … 32^10 − 1): every id that sorts at that value starts so. */
export function sortablePrefix(prefix: IdPrefix, sortValue: number): string {
  let encoded = '';
  for (let v = sortValue, i = 0; i < SORT_CHARS; i++, v = Math.floor(v / 32)) encoded = ALPHABET[v % 32] + encoded;
  return `${prefix}_${encoded}`;
}

/** An id that sorts at `sortValue`; its 16 other characters come from `seed` (random by default). */
export function idAt(prefix: IdPrefix, sortValue: number, seed: Uint8Array = randomBytes(16)): string {
  return `${sortablePrefix(prefix, sortValue)}${[...seed.subarray(0, 16)].map((b) => ALPHABET[b % 32]).join('')}`;
}

/** The sort value an id of this module carries (its first 10 characters after the prefix). */
export function sortValueOf(id: string): number {
  const encoded = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 1 + SORT_CHARS);
  let value = 0;
  for (const c of encoded) value = value * 32 + ALPHABET.indexOf(c);
  return value;
}

function increment(digits: number[]): number[] {
  const next = [...digits];
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i]! < 31) {
      next[i]! += 1;
      return next;
    }
    next[i] = 0;
  }
  return next;
}

export const ID_PATTERN = {
  agt: /^agt_[0-9A-Z]{26}$/,
  ctr: /^ctr_[0-9A-Z]{26}$/,
  evt: /^evt_[0-9A-Z]{26}$/,
  dlv: /^dlv_[0-9A-Z]{26}$/,
  dst: /^dst_[0-9A-Z]{26}$/,
} as const;

export const newUuid = (): string => takePinned((id) => UUID_PATTERN.test(id)) ?? randomUUID();

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A template's slug: lowercase words of letters and digits joined by single hyphens. */
export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
/** What can name a template wherever one is named (paths, POST /contracts): its UUID or its slug. */
export const isTemplateIdOrSlug = (id: string): boolean =>
  UUID_PATTERN.test(id) || (id.length <= 64 && SLUG_PATTERN.test(id));

import { randomBytes, randomUUID } from 'node:crypto';

/**
 * Ids of the `agt_` / `ctr_` / `evt_` / `dlv_` kinds: the prefix, 10 characters of millisecond time
 * and 16 random ones, all from a URL-safe alphabet whose order matches ASCII order. They sort by
 * creation time, so an event id doubles as a feed cursor.
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; // Crockford base32: ASCII-ordered, no I L O U

export type IdPrefix = 'agt' | 'ctr' | 'evt' | 'dlv';

let lastTime = -1;
let lastRandom: number[] = [];

/** Monotonic within one process: two ids made in the same millisecond still sort in creation order. */
export function newId(prefix: IdPrefix, now = Date.now()): string {
  let random: number[];
  if (now <= lastTime) {
    random = increment(lastRandom);
    now = lastTime;
  } else {
    random = [...randomBytes(16)].map((b) => b % 32);
  }
  lastTime = now;
  lastRandom = random;
  let time = '';
  for (let t = now, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = ALPHABET[t % 32] + time;
  return `${prefix}_${time}${random.map((d) => ALPHABET[d]).join('')}`;
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
} as const;

export const newUuid = (): string => randomUUID();

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** ISO 8601 UTC with milliseconds, as docs/api.md writes timestamps. */
export const nowIso = (): string => new Date().toISOString();

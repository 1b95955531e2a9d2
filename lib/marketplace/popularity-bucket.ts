/**
 * Coarse popularity for the search postings ordered by installs. A posting is rewritten only when
 * its template's installs cross into another bucket, so installs do not rewrite postings each time:
 *
 * - installs 0–15 each have their own bucket (exact: these are most templates, and where new ones
 *   climb fastest);
 * - from 16 on, 8 buckets per doubling ([16,18), [18,20) … [32,36) …): a bucket spans 12.5 % of its
 *   lower bound, so a template crosses 16 + 8 × log2(installs / 16) boundaries over its life
 *   (144 at a million installs).
 *
 * Within a bucket of one value the posting order (then newest first) is the exact order; within a
 * wider bucket search reads the bucket's matches and sorts them by their current installs.
 */
export const EXACT_BUCKETS = 16;
const STEPS_PER_DOUBLING = 8;
const BUCKET_DIGITS = 3;

export function popularityBucket(installs: number): number {
  const n = Math.max(0, Math.floor(installs));
  if (n < EXACT_BUCKETS) return n;
  const exponent = Math.floor(Math.log2(n));
  // The 3 bits after the leading one: n / 2^exponent = 1.xxx in binary.
  const step = Math.floor(n / 2 ** (exponent - 3)) - STEPS_PER_DOUBLING;
  return EXACT_BUCKETS + (exponent - 4) * STEPS_PER_DOUBLING + step;
}

/** The smallest install count in `bucket`. */
export function bucketFloor(bucket: number): number {
  if (bucket < EXACT_BUCKETS) return bucket;
  const exponent = 4 + Math.floor((bucket - EXACT_BUCKETS) / STEPS_PER_DOUBLING);
  const step = (bucket - EXACT_BUCKETS) % STEPS_PER_DOUBLING;
  return (STEPS_PER_DOUBLING + step) * 2 ** (exponent - 3);
}

/** Whether a bucket holds more than one install count (its members need sorting by their installs). */
export const isRangeBucket = (bucket: number): boolean => bucket >= EXACT_BUCKETS;

export const bucketLabel = (bucket: number): string => String(bucket).padStart(BUCKET_DIGITS, '0');

/** The bucket of a popularity posting's sort key (`<bucket>#<created_at>#<id>`). */
export const bucketOfSortKey = (sortKey: string): number => Number(sortKey.slice(0, BUCKET_DIGITS));

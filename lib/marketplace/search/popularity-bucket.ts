/**
 * Coarse popularity for the search postings ordered by installs. A posting is rewritten only when
 * its template's installs cross into another bucket, so installs do not rewrite postings each time:
 *
 * - installs 0–31 each have their own bucket (exact: these are most templates of a catalog, and a
 *   wide bucket there would hold thousands of them);
 * - from 32 on, 16 buckets per doubling ([32,34), [34,36) … [64,68) …): a bucket spans 6.25 % of
 *   its lower bound, so a template crosses 32 + 16 × log2(installs / 32) boundaries over its life
 *   (272 at a million installs).
 *
 * Within a bucket of one value the posting order (then newest first) is the exact order; within a
 * wider bucket search reads the bucket's matches and sorts them by their current installs. With
 * popularity spread like a power law (as catalogs are), a bucket of relative width holds about the
 * same number of a page's neighbours at any catalog size, which is what keeps that read flat.
 */
const STEP_BITS = 4;
const STEPS_PER_DOUBLING = 2 ** STEP_BITS;
export const EXACT_BUCKETS = 2 * STEPS_PER_DOUBLING;
const FIRST_RANGE_EXPONENT = STEP_BITS + 1;
const BUCKET_DIGITS = 3;

export function popularityBucket(installs: number): number {
  const n = Math.max(0, Math.floor(installs));
  if (n < EXACT_BUCKETS) return n;
  const exponent = Math.floor(Math.log2(n));
  // The STEP_BITS bits after the leading one: n / 2^exponent = 1.xxxx in binary.
  const step = Math.floor(n / 2 ** (exponent - STEP_BITS)) - STEPS_PER_DOUBLING;
  return EXACT_BUCKETS + (exponent - FIRST_RANGE_EXPONENT) * STEPS_PER_DOUBLING + step;
}

/** The smallest install count in `bucket`. */
export function bucketFloor(bucket: number): number {
  if (bucket < EXACT_BUCKETS) return bucket;
  const exponent = FIRST_RANGE_EXPONENT + Math.floor((bucket - EXACT_BUCKETS) / STEPS_PER_DOUBLING);
  const step = (bucket - EXACT_BUCKETS) % STEPS_PER_DOUBLING;
  return (STEPS_PER_DOUBLING + step) * 2 ** (exponent - STEP_BITS);
}

/** Whether a bucket holds more than one install count (its members need sorting by their installs). */
export const isRangeBucket = (bucket: number): boolean => bucket >= EXACT_BUCKETS;

export const bucketLabel = (bucket: number): string => String(bucket).padStart(BUCKET_DIGITS, '0');

/** The bucket of a popularity posting's sort key (`<bucket>#<created_at>#<id>`). */
export const bucketOfSortKey = (sortKey: string): number => Number(sortKey.slice(0, BUCKET_DIGITS));

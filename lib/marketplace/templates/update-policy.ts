/**
 * Update policies of an install, as npm reads the ranges they stand for: `pinned` is the version
 * itself (`=1.2.3`), `patch` is a tilde range (`~1.2.3`: `>=1.2.3 <1.3.0`) and `minor` a caret
 * range (`^1.2.3`: `>=1.2.3 <2.0.0`; below 1.0.0 the leftmost non-zero part is the one kept,
 * `^0.2.3` is `<0.3.0` and `^0.0.3` is `=0.0.3`). Our own few lines rather than the `semver`
 * package: versions here are plain MAJOR.MINOR.PATCH (no prerelease, no build), so a range is one
 * half-open interval, and the package would add its weight to every bundle that resolves
 * (test/marketplace/install-policy.test.ts holds these lines to `semver` on random versions).
 */
import { compareVersions } from './version.ts';

/** Tuples, not compareVersions: a range's upper bound may step past the last version a template can have (`0.0.999999` → `0.0.1000000`). */
type Parts = [number, number, number];
const split = (v: string) => v.split('.').map(Number) as Parts;
const before = (a: Parts, b: Parts) => (a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2]);

export const UPDATE_POLICIES = ['pinned', 'patch', 'minor'] as const;
export type UpdatePolicy = (typeof UPDATE_POLICIES)[number];

/** The range a policy allows from `base`: `[from, below)`. */
export interface PolicyRange {
  from: string;
  below: string;
}

export function policyRange(policy: UpdatePolicy, base: string): PolicyRange {
  const [major, minor, patch] = split(base);
  const next = (m: number, n: number, p: number) => ({ from: base, below: `${m}.${n}.${p}` });
  if (policy === 'pinned') return next(major, minor, patch + 1);
  if (policy === 'patch') return next(major, minor + 1, 0);
  if (major > 0) return next(major + 1, 0, 0);
  if (minor > 0) return next(0, minor + 1, 0);
  return next(0, 0, patch + 1);
}

/** npm's notation of the range, for the docs and the answers' words. */
export const policyRangeText = (policy: UpdatePolicy, base: string): string =>
  `${{ pinned: '=', patch: '~', minor: '^' }[policy]}${base}`;

export function allows(policy: UpdatePolicy, base: string, candidate: string): boolean {
  const { from, below } = policyRange(policy, base);
  const c = split(candidate);
  return !before(c, split(from)) && before(c, split(below));
}

/** The greatest of `versions` the policy allows from `base` (semver's maxSatisfying), or undefined. */
export function newestAllowed(policy: UpdatePolicy, base: string, versions: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const v of versions) {
    if (allows(policy, base, v) && (best === undefined || compareVersions(v, best) > 0)) best = v;
  }
  return best;
}

/** A marker from before policies existed reads as `minor`, npm's default range (`^`). */
export const policyOf = (marker: Record<string, unknown>): UpdatePolicy =>
  (UPDATE_POLICIES as readonly unknown[]).includes(marker['policy']) ? (marker['policy'] as UpdatePolicy) : 'minor';

/** The greatest version a template can have inside the range (its version keys' upper end, for one Query). */
export function lastInRange(range: PolicyRange): string {
  const [a, b, c] = split(range.below);
  const top = 999_999;
  if (c > 0) return `${a}.${b}.${Math.min(c - 1, top)}`;
  if (b > 0) return `${a}.${Math.min(b - 1, top)}.${top}`;
  return `${Math.min(a - 1, top)}.${top}.${top}`;
}

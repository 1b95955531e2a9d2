import fc from 'fast-check';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import {
  allows,
  newestAllowed,
  policyRange,
  policyRangeText,
  UPDATE_POLICIES,
} from '../../lib/marketplace/templates/update-policy.ts';

// Small parts, so random versions often share a major or minor and the ranges' edges are hit.
const part = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 999_999 }));
const version = fc.tuple(part, part, part).map((p) => p.join('.'));
const policy = fc.constantFrom(...UPDATE_POLICIES);

describe('update policies read as npm reads their ranges (the semver package is the reference)', () => {
  it('allows exactly what semver.satisfies allows', () => {
    fc.assert(
      fc.property(policy, version, version, (p, base, candidate) => {
        expect(allows(p, base, candidate)).toBe(semver.satisfies(candidate, policyRangeText(p, base)));
      }),
      { numRuns: 5000 },
    );
  });

  it('picks what semver.maxSatisfying picks', () => {
    fc.assert(
      fc.property(policy, version, fc.array(version, { maxLength: 30 }), (p, base, versions) => {
        expect(newestAllowed(p, base, versions) ?? null).toBe(semver.maxSatisfying(versions, policyRangeText(p, base)));
      }),
      { numRuns: 3000 },
    );
  });

  it("has npm's edges: caret below 1.0.0 keeps the leftmost non-zero part", () => {
    expect(policyRange('minor', '1.2.3')).toEqual({ from: '1.2.3', below: '2.0.0' });
    expect(policyRange('minor', '0.2.3')).toEqual({ from: '0.2.3', below: '0.3.0' });
    expect(policyRange('minor', '0.0.3')).toEqual({ from: '0.0.3', below: '0.0.4' });
    expect(policyRange('patch', '0.0.3')).toEqual({ from: '0.0.3', below: '0.1.0' });
    expect(policyRange('pinned', '4.5.6')).toEqual({ from: '4.5.6', below: '4.5.7' });
    expect(newestAllowed('minor', '1.0.0', ['1.9.9', '2.0.0', '0.9.0'])).toBe('1.9.9');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explain, matches } from '../../lib/filters/evaluate.ts';
import { FILTER_LIMITS, type Filter } from '../../lib/filters/filter.ts';
import { filterSchema } from '../../lib/filters/grammar.ts';
import { neverMatches } from '../../lib/filters/never-matches.ts';
import { issuesToDetails } from '../../lib/http/validation.ts';

/**
 * The reference: the grammar's words (docs/webhooks.md, "Filters") written the plainest way, with
 * none of the evaluator's shortcuts (no early exits, paths resolved by split and reduce).
 */
function reference(filter: Filter, event: Record<string, unknown>): boolean {
  const lookup = (path: string): { present: boolean; value?: unknown } => {
    let at: unknown = event;
    for (const segment of path.split('.')) {
      if (Array.isArray(at)) {
        if (!/^\d+$/.test(segment) || Number(segment) >= at.length) return { present: false };
        at = at[Number(segment)];
      } else if (at !== null && typeof at === 'object' && Object.keys(at).includes(segment)) {
        at = (at as Record<string, unknown>)[segment];
      } else return { present: false };
    }
    return at === undefined ? { present: false } : { present: true, value: at };
  };
  const isDate = (v: unknown) =>
    typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(v);
  switch (filter.op) {
    case 'and':
      return filter.clauses.map((c) => reference(c, event)).reduce((a, b) => a && b, true);
    case 'or':
      return filter.clauses.map((c) => reference(c, event)).reduce((a, b) => a || b, false);
    case 'not':
      return !reference(filter.clause, event);
    case 'exists':
      return lookup(filter.path).present;
    case 'eq': {
      const f = lookup(filter.path);
      return f.present && f.value === filter.value;
    }
    case 'ne': {
      const f = lookup(filter.path);
      return !(f.present && f.value === filter.value);
    }
    case 'in': {
      const f = lookup(filter.path);
      return f.present && filter.values.includes(f.value as never);
    }
    default: {
      const f = lookup(filter.path);
      let a: number;
      let b: number;
      if (typeof filter.value === 'number') {
        if (typeof f.value !== 'number') return false;
        [a, b] = [f.value, filter.value];
      } else {
        if (!isDate(f.value) || !isDate(filter.value)) return false;
        [a, b] = [new Date(f.value as string).getTime(), new Date(filter.value).getTime()];
      }
      if (Number.isNaN(a) || Number.isNaN(b)) return false;
      return { gt: a > b, gte: a >= b, lt: a < b, lte: a <= b }[filter.op];
    }
  }
}

// Few names and values, so generated filters and events meet often.
const paths = fc.constantFrom('type', 'id', 'data.amount', 'data.currency', 'data.when', 'data.items.0', 'data.flag');
const dates = fc.constantFrom('2026-01-01T00:00:00Z', '2026-06-01T12:00:00.500Z', '2026-06-01T14:00:00+02:00');
const scalars = fc.oneof(
  fc.constantFrom('contract.funded', 'contract.released', 'usd', 'eur', '', null, true, false),
  fc.integer({ min: -3, max: 3 }),
  dates,
);
const comparison: fc.Arbitrary<Filter> = fc.oneof(
  fc.record({ op: fc.constantFrom('eq' as const, 'ne' as const), path: paths, value: scalars }),
  fc.record({ op: fc.constant('in' as const), path: paths, values: fc.array(scalars, { minLength: 1, maxLength: 4 }) }),
  fc.record({
    op: fc.constantFrom('gt' as const, 'gte' as const, 'lt' as const, 'lte' as const),
    path: paths,
    value: fc.oneof(fc.integer({ min: -3, max: 3 }), dates),
  }),
  fc.record({ op: fc.constant('exists' as const), path: paths }),
);
const { filter: filters } = fc.letrec<{ filter: Filter }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    comparison,
    fc.record({
      op: fc.constantFrom('and' as const, 'or' as const),
      clauses: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }),
    }),
    fc.record({ op: fc.constant('not' as const), clause: tie('filter') }),
  ),
}));
const events = fc.record({
  id: fc.constantFrom('evt_1', 'evt_2'),
  type: fc.constantFrom('contract.funded', 'contract.released'),
  data: fc.record(
    {
      amount: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constant('1'), fc.constant(null)),
      currency: fc.constantFrom('usd', 'eur', ''),
      when: fc.oneof(dates, fc.constant('not a date'), fc.integer()),
      items: fc.array(scalars, { maxLength: 2 }),
      flag: fc.boolean(),
    },
    { requiredKeys: [] },
  ),
});

const fits = (f: Filter) => filterSchema.safeParse(f).success;

describe('filters: grammar and evaluation', () => {
  it('the evaluator agrees with the reference on any filter and event', () => {
    fc.assert(
      fc.property(filters, events, (filter, event) => {
        const expected = reference(filter, event);
        expect(matches(filter, event)).toBe(expected);
        expect(explain(filter, event).matched).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('names a clause that fails on its own when the event does not match', () => {
    fc.assert(
      fc.property(filters, events, (filter, event) => {
        const result = explain(filter, event);
        if (result.matched) return;
        // The clause it names is where it says, and fails against the event by itself.
        let at: unknown = filter;
        for (const step of result.failed.at === '' ? [] : result.failed.at.split('.'))
          at = (at as Record<string, unknown>)[step];
        expect(at).toEqual(result.failed.clause);
        expect(reference(result.failed.clause, event)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('never calls a filter that some event matches one that never matches', () => {
    fc.assert(
      fc.property(filters, events, (filter, event) => {
        if (reference(filter, event)) expect(neverMatches(filter)).toBe('maybe');
      }),
      { numRuns: 2000 },
    );
  });

  it('flags contradictions and kinds the subscription never gets', () => {
    const amount = (op: 'gt' | 'lt', value: number): Filter => ({ op, path: 'data.amount', value });
    expect(neverMatches({ op: 'and', clauses: [amount('gt', 10), amount('lt', 5)] })).toBe('never');
    expect(neverMatches({ op: 'and', clauses: [amount('gt', 10), amount('lt', 11)] })).toBe('maybe');
    expect(
      neverMatches({
        op: 'and',
        clauses: [
          { op: 'eq', path: 'data.currency', value: 'usd' },
          { op: 'eq', path: 'data.currency', value: 'eur' },
        ],
      }),
    ).toBe('never');
    expect(
      neverMatches({
        op: 'and',
        clauses: [
          { op: 'exists', path: 'data.x' },
          { op: 'not', clause: { op: 'exists', path: 'data.x' } },
        ],
      }),
    ).toBe('never');
    const refunded: Filter = { op: 'eq', path: 'type', value: 'contract.refunded' };
    expect(neverMatches(refunded, ['contract.funded'])).toBe('never');
    expect(neverMatches(refunded, ['contract.funded', 'contract.refunded'])).toBe('maybe');
  });

  it('accepts every generated filter within the bounds, and refuses past each bound naming the path', () => {
    const depth = (f: Filter): number =>
      f.op === 'and' || f.op === 'or'
        ? 1 + Math.max(...f.clauses.map(depth))
        : f.op === 'not'
          ? 1 + depth(f.clause)
          : 0;
    const count = (f: Filter): number =>
      f.op === 'and' || f.op === 'or'
        ? 1 + f.clauses.map(count).reduce((a, b) => a + b)
        : f.op === 'not'
          ? 1 + count(f.clause)
          : 1;
    fc.assert(
      fc.property(filters, (f) => {
        fc.pre(depth(f) <= FILTER_LIMITS.maxDepth && count(f) <= 40);
        expect(fits(f)).toBe(true);
      }),
    );
    const leaf: Filter = { op: 'exists', path: 'data.a' };
    let deep: Filter = leaf;
    for (let i = 0; i <= FILTER_LIMITS.maxDepth; i++) deep = { op: 'not', clause: deep };
    const details = (value: unknown) => {
      const r = filterSchema.safeParse(value);
      return r.success ? [] : [...issuesToDetails(r.error.issues)];
    };
    expect(details(deep)).toEqual([
      { path: 'clause.clause.clause.clause.clause.clause', message: expect.stringContaining('at most 5 levels') },
    ]);
    expect(details(deep.op === 'not' ? deep.clause : deep)).toEqual([]);
    const wide = { op: 'or', clauses: Array.from({ length: FILTER_LIMITS.maxClauses }, () => leaf) };
    expect(details(wide)[0]).toEqual({ path: 'clauses.49', message: 'At most 50 clauses in a filter.' });
    expect(details({ op: 'and', clauses: [leaf, { op: 'eq', path: 'data.a', value: { x: 1 } }] })).toEqual([
      { path: 'clauses.1.value', message: 'Expected a string, a number, true, false or null.' },
    ]);
    expect(details({ op: 'and', clauses: [leaf, { op: 'gt', path: 'data.a', value: 'tomorrow' }] })[0]?.path).toBe(
      'clauses.1.value',
    );
    expect(details({ op: 'or', clauses: [{ op: 'exists', path: 'body.a' }] })[0]?.path).toBe('clauses.0.path');
    expect(details({ op: 'or', clauses: [{ op: 'exists', path: 'type.a' }] })[0]?.path).toBe('clauses.0.path');
    expect(details({ op: 'xor', clauses: [] })[0]?.path).toBe('op');
    expect(details({ op: 'in', path: 'data.a', values: [] })[0]?.path).toBe('values');
    expect(details({ op: 'exists', path: 'data.a', value: 1 })[0]).toEqual({
      path: 'value',
      message: 'Unknown field.',
    });
    const costly = {
      op: 'or',
      clauses: Array.from({ length: 9 }, () => ({
        op: 'in',
        path: 'data.a.b.c',
        values: Array.from({ length: 50 }, (_, i) => i),
      })),
    };
    expect(details(costly)[0]?.message).toMatch(/costs 487 units .* at most 400/);
  });
});

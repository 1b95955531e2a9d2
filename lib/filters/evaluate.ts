/**
 * A filter (grammar.ts) against one event object, as delivered (at the subscription's pinned
 * schema version). Pure: no clock, no I/O. Semantics (docs/webhooks.md, "Filters"):
 *
 * - `eq`: the field is present and equal (JSON equality of scalars: `1` is not `"1"`); `ne` is `not eq`,
 *   so a missing field is `ne` anything.
 * - `in`: `eq` to one of the values.
 * - `gt`/`gte`/`lt`/`lte`: a number against a number; an ISO 8601 date-time against a field that
 *   is one too, by the instant. Any other pairing does not match.
 * - `exists`: the field is present (`null` counts as present).
 * - `and` of every clause, `or` of any, `not` of one.
 */
import type { Comparison, Filter, Scalar } from './filter.ts';
import { ISO_DATE_TIME } from './filter.ts';

const MISSING = Symbol('missing');
type Found = unknown | typeof MISSING;

/** The value at a dotted path of the event object, or MISSING. */
export function valueAt(event: unknown, path: string): Found {
  let current: unknown = event;
  let start = 0;
  for (;;) {
    const dot = path.indexOf('.', start);
    const segment = dot < 0 ? path.slice(start) : path.slice(start, dot);
    if (current === null || typeof current !== 'object') return MISSING;
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) return MISSING;
      const index = Number(segment);
      if (index >= current.length) return MISSING;
      current = current[index];
    } else {
      if (!Object.hasOwn(current, segment)) return MISSING;
      current = (current as Record<string, unknown>)[segment];
    }
    if (current === undefined) return MISSING;
    if (dot < 0) return current;
    start = dot + 1;
  }
}

const instant = (value: unknown): number | undefined =>
  typeof value === 'string' && ISO_DATE_TIME.test(value) ? Date.parse(value) : undefined;

/** The two sides as comparable numbers, or undefined when they cannot be ordered. */
function ordered(found: Found, bound: number | string): [number, number] | undefined {
  if (typeof bound === 'number') return typeof found === 'number' ? [found, bound] : undefined;
  const a = instant(found);
  const b = instant(bound);
  return a === undefined || b === undefined || Number.isNaN(a) || Number.isNaN(b) ? undefined : [a, b];
}

const same = (found: Found, value: Scalar): boolean => found === value;

export function comparisonHolds(node: Comparison, event: unknown): boolean {
  const found = valueAt(event, node.path);
  switch (node.op) {
    case 'exists':
      return found !== MISSING;
    case 'eq':
      return same(found, node.value);
    case 'ne':
      return !same(found, node.value);
    case 'in':
      return node.values.some((v) => same(found, v));
    default: {
      const pair = ordered(found, node.value);
      if (!pair) return false;
      const [a, b] = pair;
      return node.op === 'gt' ? a > b : node.op === 'gte' ? a >= b : node.op === 'lt' ? a < b : a <= b;
    }
  }
}

/** The hot path (the outbox and the relay): whether the event passes. */
export function matches(filter: Filter, event: unknown): boolean {
  switch (filter.op) {
    case 'and':
      return filter.clauses.every((c) => matches(c, event));
    case 'or':
      return filter.clauses.some((c) => matches(c, event));
    case 'not':
      return !matches(filter.clause, event);
    default:
      return comparisonHolds(filter, event);
  }
}

/** Why an event did not pass: the clause that decided it, where it stands in the filter, and in words. */
export interface FailedClause {
  /** Dotted from the filter's root, e.g. `clauses.1.clause` ('' for the root). */
  at: string;
  clause: Filter;
  reason: string;
}

export type Explained = { matched: true } | { matched: false; failed: FailedClause };

const shown = (found: Found): string => (found === MISSING ? 'absent' : JSON.stringify(found));

function reasonOf(node: Comparison, event: unknown): string {
  const found = valueAt(event, node.path);
  switch (node.op) {
    case 'exists':
      return `${node.path} is absent.`;
    case 'eq':
      return `${node.path} is ${shown(found)}, not ${JSON.stringify(node.value)}.`;
    case 'ne':
      return `${node.path} is ${JSON.stringify(node.value)}.`;
    case 'in':
      return `${node.path} is ${shown(found)}, none of ${JSON.stringify(node.values)}.`;
    default:
      return ordered(found, node.value)
        ? `${node.path} is ${shown(found)}, not ${node.op} ${JSON.stringify(node.value)}.`
        : `${node.path} is ${shown(found)}, which cannot be compared with ${JSON.stringify(node.value)} (a number with a number, a date-time with a date-time).`;
  }
}

/** The test route's answer (POST …/filters/test): the first clause that failed, depth first. */
export function explain(filter: Filter, event: unknown, at: (string | number)[] = []): Explained {
  const here = at.join('.');
  switch (filter.op) {
    case 'and':
      for (let i = 0; i < filter.clauses.length; i++) {
        const inner = explain(filter.clauses[i]!, event, [...at, 'clauses', i]);
        if (!inner.matched) return inner;
      }
      return { matched: true };
    case 'or': {
      if (filter.clauses.some((c) => matches(c, event))) return { matched: true };
      const reasons = filter.clauses.map((c, i) => {
        const inner = explain(c, event, [...at, 'clauses', i]) as { failed: FailedClause };
        return inner.failed.reason;
      });
      return {
        matched: false,
        failed: { at: here, clause: filter, reason: `No clause matched: ${reasons.join(' ')}` },
      };
    }
    case 'not':
      return matches(filter.clause, event)
        ? { matched: false, failed: { at: here, clause: filter, reason: 'The clause under `not` matched.' } }
        : { matched: true };
    default:
      return comparisonHolds(filter, event)
        ? { matched: true }
        : { matched: false, failed: { at: here, clause: filter, reason: reasonOf(filter, event) } };
  }
}

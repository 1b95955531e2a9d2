/**
 * Whether a filter can never match (allowed, but flagged in the answer: docs/webhooks.md,
 * "Filters"). Each comparison depends only on the value at its path, so the values that matter
 * fall into a few classes per path: absent, each constant named, a value between two named
 * numbers or instants and beyond them, another string, true, false, null, an object. One
 * representative of each class per path, tried in every combination, decides it exactly for paths
 * taken alone; paths one inside another (`data.a`, `data.a.b`) are tried as if independent, which
 * can only miss a contradiction, never invent one. Past MAX_COMBINATIONS it says nothing.
 */
import { matches } from './evaluate.ts';
import { type Filter, nodesOf, type Scalar } from './filter.ts';

const MAX_COMBINATIONS = 20_000;
const ABSENT = Symbol('absent');
type Candidate = Scalar | object | typeof ABSENT;

function between(sorted: number[]): number[] {
  if (sorted.length === 0) return [0];
  const out = [sorted[0]! - 1, sorted[sorted.length - 1]! + 1];
  for (let i = 0; i < sorted.length; i++) {
    out.push(sorted[i]!);
    if (i + 1 < sorted.length) out.push((sorted[i]! + sorted[i + 1]!) / 2);
  }
  return out;
}

function candidatesFor(constants: readonly Scalar[]): Candidate[] {
  const numbers = [...new Set(constants.filter((c): c is number => typeof c === 'number'))].sort((a, b) => a - b);
  const instants = [
    ...new Set(
      constants.flatMap((c) => (typeof c === 'string' && !Number.isNaN(Date.parse(c)) ? [Date.parse(c)] : [])),
    ),
  ].sort((a, b) => a - b);
  const dates = instants.length > 0 ? between(instants).map((ms) => new Date(Math.round(ms)).toISOString()) : [];
  return [
    ABSENT,
    null,
    true,
    false,
    { object: true },
    '\u0000another string',
    ...new Set([...constants, ...between(numbers), ...dates]),
  ];
}

/** An event object with each path set to its candidate (absent ones left out). */
function eventWith(paths: readonly string[], values: readonly Candidate[]): Record<string, unknown> {
  const event: Record<string, unknown> = {};
  paths.forEach((path, i) => {
    const value = values[i];
    if (value === ABSENT) return;
    const segments = path.split('.');
    let at = event;
    for (const s of segments.slice(0, -1)) {
      if (typeof at[s] !== 'object' || at[s] === null) at[s] = {};
      at = at[s] as Record<string, unknown>;
    }
    at[segments[segments.length - 1]!] = value;
  });
  return event;
}

/**
 * `'never'` when no event can match; `'maybe'` otherwise (or when too many combinations to try).
 * `kinds`: the event kinds the subscription receives, the only values `type` can take.
 */
export function neverMatches(filter: Filter, kinds?: readonly string[]): 'never' | 'maybe' {
  const constants = new Map<string, Scalar[]>();
  for (const [node] of nodesOf(filter)) {
    if (!('path' in node)) continue;
    const list = constants.get(node.path) ?? [];
    if (node.op === 'in') list.push(...node.values);
    else if (node.op !== 'exists') list.push(node.value);
    constants.set(node.path, list);
  }
  // Parents before the paths inside them, so a child's value is set inside its parent's object.
  const paths = [...constants.keys()].sort((a, b) => a.split('.').length - b.split('.').length);
  const options = paths.map((path) =>
    path === 'type' && kinds ? [...new Set(kinds)] : candidatesFor(constants.get(path)!),
  );
  let combinations = 1;
  for (const o of options) combinations *= o.length;
  if (combinations > MAX_COMBINATIONS) return 'maybe';
  const pick: Candidate[] = new Array(paths.length);
  const tryFrom = (i: number): boolean => {
    if (i === paths.length) return matches(filter, eventWith(paths, pick));
    for (const value of options[i]!) {
      pick[i] = value;
      if (tryFrom(i + 1)) return true;
    }
    return false;
  };
  return tryFrom(0) ? 'maybe' : 'never';
}

/**
 * The filter grammar's types, bounds and walks, without its zod schema (grammar.ts): what the
 * evaluator and the functions that judge events bundle (the schema is for the routes that take one).
 */
export const FILTER_LIMITS = {
  /** Nesting of and/or/not: a clause inside `maxDepth` of them is the deepest. */
  maxDepth: 5,
  /** Every node, combinators and comparisons alike. */
  maxClauses: 50,
  maxInValues: 50,
  maxPathSegments: 8,
  maxPathLength: 200,
  maxStringLength: 256,
  /** The filter as JSON. */
  maxBytes: 4096,
  /** Work units of one evaluation at worst: a comparison costs its path's segments, an `in` adds its values. */
  maxCost: 400,
} as const;

export type Scalar = string | number | boolean | null;

export type Filter =
  | { op: 'and' | 'or'; clauses: Filter[] }
  | { op: 'not'; clause: Filter }
  | { op: 'eq' | 'ne'; path: string; value: Scalar }
  | { op: 'in'; path: string; values: Scalar[] }
  | { op: 'gt' | 'gte' | 'lt' | 'lte'; path: string; value: number | string }
  | { op: 'exists'; path: string };

export type Comparison = Exclude<Filter, { op: 'and' | 'or' | 'not' }>;

/** The envelope fields a path may start with (lib/events/feed/event.ts); `data` goes on into the kind's fields. */
export const ENVELOPE_FIELDS = ['id', 'type', 'created_at', 'agent_id', 'schema_version', 'data'] as const;

/** ISO 8601 date-time with a zone, as every date of the service's events is written. */
export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Each node with its path from the filter's root (for refusals and for the test route's answer). */
export function* nodesOf(
  filter: Filter,
  at: (string | number)[] = [],
): Generator<[Filter, (string | number)[], number]> {
  const walk = function* (
    node: Filter,
    where: (string | number)[],
    depth: number,
  ): Generator<[Filter, (string | number)[], number]> {
    yield [node, where, depth];
    if (node.op === 'and' || node.op === 'or')
      for (let i = 0; i < node.clauses.length; i++) yield* walk(node.clauses[i]!, [...where, 'clauses', i], depth + 1);
    else if (node.op === 'not') yield* walk(node.clause, [...where, 'clause'], depth + 1);
  };
  yield* walk(filter, at, 0);
}

/** What one evaluation can cost at worst (FILTER_LIMITS.maxCost). */
export function filterCost(filter: Filter): number {
  let cost = 0;
  for (const [node] of nodesOf(filter)) {
    if ('path' in node) cost += node.path.split('.').length + (node.op === 'in' ? node.values.length : 0);
    else cost += 1;
  }
  return cost;
}

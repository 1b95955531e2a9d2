/**
 * What a JSON body may hold so that any part of it can be stored in a DynamoDB item as sent. Every
 * body goes through `firstUnstorable` before its schema, so a document a route stores (a check's
 * `config`, verification `results`, anything to come) can never reach DynamoDB with something it
 * refuses, which would be a 500 for the client's mistake.
 */
import { detailPath, type ErrorDetail } from '../core/errors.ts';

/**
 * Object keys no body may use, at any depth: DynamoDB's marshaller reads a value's kind from
 * `value.constructor`, and assignment turns `__proto__` into a prototype instead of a key.
 */
const RESERVED_KEYS = new Set(['constructor', '__proto__']);

/**
 * Items an array may hold. Far above any array a route takes (100 checks, 100 variables), and low
 * enough that validating one stays cheap and zod/mini, which gathers an array's issues with one
 * spread call, never meets the engine's limit on arguments (about 100,000 wrong items).
 */
export const MAX_ARRAY_ITEMS = 10_000;

/** DynamoDB stores numbers down to 1e-130; the SDK refuses those beyond ±(2^53 − 1) as imprecise. */
const storableNumber = (n: number): boolean =>
  n === 0 || (Math.abs(n) <= Number.MAX_SAFE_INTEGER && Math.abs(n) >= 1e-130);

/**
 * A lone surrogate (`"\ud800"`) is valid JSON but not Unicode text: UTF-8, which DynamoDB stores,
 * cannot encode it. As a map key DynamoDB refuses the item; as a value it would be altered or refused
 * depending on the layer, so neither is accepted.
 */
const LONE_SURROGATE =
  'Not well-formed Unicode: the text contains a lone surrogate (\\ud800–\\udfff without its pair).';

/** How a key is shown in a `details` path: a lone surrogate would make the answer itself ill-formed. */
const shown = (key: string): string => key.toWellFormed();

function keyProblem(key: string): string | undefined {
  if (key === '') return 'Object keys must not be empty (DynamoDB cannot store an empty attribute name).';
  if (RESERVED_KEYS.has(key)) return 'This key is reserved; use another name.';
  if (!key.isWellFormed()) return LONE_SURROGATE;
  return undefined;
}

/**
 * The first value of a body that could not be stored as sent (a reserved, empty or ill-formed key,
 * an ill-formed string, a number out of range), with its dotted path. Depth is bounded by the
 * stack's nesting check, which runs first, so recursion is safe.
 */
export function firstUnstorable(value: unknown, path: readonly string[] = []): ErrorDetail | undefined {
  const at = (...more: string[]) => detailPath([...path, ...more]);
  if (typeof value === 'number') {
    return storableNumber(value)
      ? undefined
      : {
          path: at(),
          message: `This number cannot be stored exactly; use one between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} (or send it as a string).`,
        };
  }
  if (typeof value === 'string') return value.isWellFormed() ? undefined : { path: at(), message: LONE_SURROGATE };
  if (Array.isArray(value)) {
    if (value.length > MAX_ARRAY_ITEMS) return { path: at(), message: `At most ${MAX_ARRAY_ITEMS} items in an array.` };
    for (let i = 0; i < value.length; i++) {
      const found = firstUnstorable(value[i], [...path, String(i)]);
      if (found) return found;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) {
      const problem = keyProblem(key);
      if (problem) return { path: at(shown(key)), message: problem };
      const found = firstUnstorable((value as Record<string, unknown>)[key], [...path, shown(key)]);
      if (found) return found;
    }
  }
  return undefined;
}

import type * as z from '../zod.ts';
import { validationError, type ErrorDetail } from '../core/errors.ts';

/** Turns zod issues into docs/api.md `details`: one entry per problem, `path` dotted from the input's root. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[]): ErrorDetail[] {
  return issues.flatMap((issue): ErrorDetail[] => {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: base ? `${base}.${key}` : key, message: 'Unknown field.' }));
    }
    return [{ path: base, message: issue.message }];
  });
}

/**
 * Parses `value` with `schema` or throws a 400 `validation_error` listing every problem. zod/mini
 * gathers an array's issues with one spread call, which overflows the stack past about 100,000
 * wrong items; bodies cannot hold arrays that long (storable.ts), and should any input still get
 * there, it is the client's mistake and answered as one.
 */
export function parseOrThrow<S extends z.ZodMiniType>(schema: S, value: unknown, what: string): z.output<S> {
  let result: ReturnType<typeof schema.safeParse>;
  try {
    result = schema.safeParse(value);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw validationError([{ path: '', message: 'Too many problems to list: the items of an array are wrong by the tens of thousands.' }], `The ${what} is not valid.`);
  }
  if (!result.success) {
    throw validationError(issuesToDetails(result.error.issues), `The ${what} is not valid.`);
  }
  return result.data;
}

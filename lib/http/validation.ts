import type * as z from '../zod.ts';
import { validationError, type ErrorDetail } from './errors.ts';

/** Turns zod issues into API.md `details`: one entry per problem, `path` dotted from the input's root. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[]): ErrorDetail[] {
  return issues.flatMap((issue): ErrorDetail[] => {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: base ? `${base}.${key}` : key, message: 'Unknown field.' }));
    }
    return [{ path: base, message: issue.message }];
  });
}

/** Parses `value` with `schema` or throws a 400 `validation_error` listing every problem. */
export function parseOrThrow<S extends z.ZodMiniType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw validationError(issuesToDetails(result.error.issues), `The ${what} is not valid.`);
  }
  return result.data;
}

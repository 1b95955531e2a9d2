import { AppError, detailPath, type ErrorDetail, validationError } from '../core/errors.ts';
import * as z from '../zod.ts';

/**
 * Turns zod issues into docs/api.md `details`: one entry per problem, `path` dotted from the
 * input's root. Lazy: AppError keeps MAX_DETAILS of them, and only those are ever built.
 */
export function* issuesToDetails(issues: readonly z.core.$ZodIssue[]): Generator<ErrorDetail> {
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) yield { path: detailPath([...issue.path, key]), message: 'Unknown field.' };
    } else {
      yield { path: detailPath(issue.path), message: issue.message };
    }
  }
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
    throw validationError(
      [{ path: '', message: 'Too many problems to list: the items of an array are wrong by the tens of thousands.' }],
      `The ${what} is not valid.`,
    );
  }
  if (!result.success) {
    throw validationError(issuesToDetails(result.error.issues), `The ${what} is not valid.`);
  }
  return result.data;
}

/** A route that declares no query parameters takes none: any name is an unknown field (docs/limits.md). */
const NO_QUERY = z.strictObject({});

/** The query string parsed by the route's schema, or refused when the route declares none and some are sent. */
export function parseQuery(
  schema: z.ZodMiniType | undefined,
  raw: Record<string, string | undefined> | null | undefined,
): unknown {
  return parseOrThrow(schema ?? NO_QUERY, raw ?? {}, 'query string');
}

/** A message's text as JSON parsed by `schema`: 400 `invalid_json` when it is not JSON, else as parseOrThrow. */
export function parseJsonMessage<S extends z.ZodMiniType>(schema: S, text: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('invalid_json', 'The message is not valid JSON.');
  }
  return parseOrThrow(schema, value, 'message');
}

/**
 * The one import of zod for the service: `zod/mini` (the same validation core as full zod, a
 * function-per-check API that bundles to a small fraction of it) with its English messages loaded,
 * so every schema's error details read as they did with full zod. Import it as a namespace
 * (`import * as z from '…/zod.ts'`): esbuild then keeps only the checks a bundle uses.
 */
import { config, gte, int, lte, number, pipe, regex, string, transform } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/mini';

/** The range of each schema made by queryInteger, for the OpenAPI document (lib/http/openapi/document.ts). */
export const QUERY_INTEGERS = new WeakMap<object, { minimum: number; maximum: number }>();

/**
 * A whole number in a query string (`limit`, `offset`): digits only, so " 5", "5.0", "1e1" and
 * "0x5" are refused (a coercion would take them), then the range. On the wire a query value is
 * text; the OpenAPI document shows the integer it is, so a generated client sends `limit: 5`.
 */
export function queryInteger(minimum: number, maximum: number) {
  const schema = pipe(
    pipe(string().check(regex(/^\d{1,7}$/, 'Must be a whole number.')), transform(Number)),
    number().check(int(), gte(minimum), lte(maximum)),
  );
  QUERY_INTEGERS.set(schema, { minimum, maximum });
  return schema;
}

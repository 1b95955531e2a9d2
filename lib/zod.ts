/**
 * The one import of zod for the service: `zod/mini` (the same validation core as full zod, a
 * function-per-check API that bundles to a small fraction of it) with English messages, so every
 * schema's error details read as they did with full zod. Import it as a namespace
 * (`import * as z from '…/zod.ts'`): esbuild then keeps only the checks a bundle uses.
 */
import { config, gte, int, lte, number, pipe, regex, string, transform } from 'zod/mini';
import type { $ZodRawIssue } from 'zod/v4/core';

/**
 * zod's English messages (`zod/v4/locales/en.js`), word for word, for the issues this service's
 * schemas can raise: the locale itself is 2.7 KB of every bundle, most of it formats no schema here
 * uses. test/architecture/zod-messages.test.ts holds the two side by side, issue by issue.
 */
const UNITS: Record<string, string> = {
  string: 'characters',
  file: 'bytes',
  array: 'items',
  set: 'items',
  map: 'entries',
};
const FORMATS: Record<string, string> = {
  regex: 'input',
  email: 'email address',
  url: 'URL',
  uuid: 'UUID',
  datetime: 'ISO datetime',
  date: 'ISO date',
  template_literal: 'input',
};
const primitive = (v: unknown) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'string' ? `"${v}"` : `${v}`);
const typeName = (input: unknown) => {
  const t = typeof input;
  if (t === 'number') return Number.isNaN(input) ? 'NaN' : Number.isFinite(input) ? 'number' : String(input);
  if (t !== 'object') return t;
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'array';
  const proto = Object.getPrototypeOf(input);
  return proto !== Object.prototype && proto?.constructor ? (proto.constructor as { name: string }).name : t;
};

export function englishMessage(issue: $ZodRawIssue): string {
  const i = issue as Record<string, never> & $ZodRawIssue;
  switch (issue.code) {
    case 'invalid_type':
      return `Invalid input: expected ${i.expected === 'nan' ? 'NaN' : i.expected}, received ${typeName(i.input)}`;
    case 'invalid_value': {
      const values = i.values as unknown[];
      return values.length === 1
        ? `Invalid input: expected ${primitive(values[0])}`
        : `Invalid option: expected one of ${values.map(primitive).join('|')}`;
    }
    case 'too_big':
    case 'too_small': {
      const big = issue.code === 'too_big';
      const bound = String(big ? i.maximum : i.minimum);
      const adj = i.exact ? 'exactly ' : i.inclusive ? (big ? '<=' : '>=') : big ? '<' : '>';
      const unit = UNITS[i.origin as string];
      const what = `${big ? 'Too big' : 'Too small'}: expected ${i.origin ?? (big ? 'value' : undefined)}`;
      return unit ? `${what} to have ${adj}${bound} ${unit}` : `${what} to be ${adj}${bound}`;
    }
    case 'invalid_format': {
      const f = i.format as string;
      if (f === 'starts_with') return `Invalid string: must start with "${i.prefix}"`;
      if (f === 'ends_with') return `Invalid string: must end with "${i.suffix}"`;
      if (f === 'includes') return `Invalid string: must include "${i.includes}"`;
      if (f === 'regex') return `Invalid string: must match pattern ${i.pattern}`;
      return `Invalid ${FORMATS[f] ?? f}`;
    }
    case 'not_multiple_of':
      return `Invalid number: must be a multiple of ${i.divisor}`;
    case 'unrecognized_keys': {
      const keys = i.keys as string[];
      return `Unrecognized key${keys.length > 1 ? 's' : ''}: ${keys.map(primitive).join(', ')}`;
    }
    case 'invalid_key':
      return `Invalid key in ${i.origin}`;
    case 'invalid_element':
      return `Invalid value in ${i.origin}`;
    case 'invalid_union': {
      const options = i.options as unknown[] | undefined;
      if (Array.isArray(options) && options.length > 0)
        return `Invalid discriminator value. Expected ${options.map((o) => `'${o}'`).join(' | ')}`;
      return i.inclusive === false ? 'Invalid input: more than one option matched' : 'Invalid input';
    }
    default:
      return 'Invalid input';
  }
}

config({ localeError: englishMessage });

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

/**
 * The `schema` of a template (docs/api.md "Schema elements"): the shape with zod, then the rules that
 * span elements (unique names and ids, defaults that fit their type, `{{name}}` references) as
 * issues with exact paths, so a publisher sees every problem at once.
 */

import * as z from '../../zod.ts';
import { MAX_VARIABLE_VALUE_BYTES } from './variables.ts';

export const VARIABLE_NAME = /^[a-z_][a-z0-9_]{0,63}$/;
export const VARIABLE_TYPES = ['string', 'number', 'integer', 'boolean', 'url'] as const;
type VariableType = (typeof VARIABLE_TYPES)[number];

/** Bounds the template item (it is rewritten on every install, and DynamoDB bills writes per KB). */
export const MAX_SCHEMA_BYTES = 32 * 1024;
/**
 * `{{ anything }}`, its inside trimmed in code: `\{\{\s*([^{}]*?)\s*\}\}` let the three quantifiers
 * share the spaces, so "{{" and 4,000 spaces took 36 s to scan (cubic backtracking).
 */
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

const variable = z.strictObject({
  name: z.string().check(
    z.regex(VARIABLE_NAME, 'Must match ^[a-z_][a-z0-9_]{0,63}$.'),
    // `constructor`, `__proto__`: every object already has them, so values could never be kept under them.
    z.refine((name) => !(name in Object.prototype), 'This name is reserved; choose another.'),
  ),
  type: z.enum(VARIABLE_TYPES),
  required: z._default(z.boolean(), true),
  default: z.optional(z.unknown()),
  description: z.optional(z.string().check(z.maxLength(500))),
  enum: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(200))).check(z.minLength(1), z.maxLength(100))),
});

const check = z.strictObject({
  id: z.string().check(z.minLength(1), z.maxLength(64)),
  type: z.string().check(z.minLength(1), z.maxLength(64)),
  description: z.optional(z.string().check(z.maxLength(500))),
  config: z.record(z.string(), z.unknown()),
});

export const templateSchema = z
  .strictObject({
    checks: z.array(check).check(z.maxLength(100)),
    variables: z.array(variable).check(z.maxLength(100)),
  })
  .check(
    z.superRefine((schema, ctx) => {
      // A copy per issue: zod prefixes the issue's path in place, and placeholders of one string share theirs.
      const issue = (path: (string | number)[], message: string) =>
        ctx.addIssue({ code: 'custom', path: [...path], message });
      if (Buffer.byteLength(JSON.stringify(schema)) > MAX_SCHEMA_BYTES)
        issue([], `Must be at most ${MAX_SCHEMA_BYTES} bytes as JSON.`);

      const declared = new Set<string>();
      schema.variables.forEach((v, i) => {
        if (declared.has(v.name)) issue(['variables', i, 'name'], `Duplicate variable name "${v.name}".`);
        declared.add(v.name);
        if (v.enum) {
          if (v.type !== 'string') issue(['variables', i, 'enum'], 'Only string variables may have an enum.');
          if (new Set(v.enum).size !== v.enum.length) issue(['variables', i, 'enum'], 'Values must be unique.');
        }
        if (v.default !== undefined) {
          const problem = defaultProblem(v.type, v.default, v.enum);
          if (problem) issue(['variables', i, 'default'], problem);
        }
      });

      const ids = new Set<string>();
      schema.checks.forEach((c, i) => {
        if (ids.has(c.id)) issue(['checks', i, 'id'], `Duplicate check id "${c.id}".`);
        ids.add(c.id);
      });
      for (const { path, name, uses } of undeclaredPlaceholders(schema.checks, declared)) {
        issue(path, `{{${shown(name)}}} is not a declared variable${uses > 1 ? ` (used ${uses} times)` : ''}.`);
      }
    }),
  );

/**
 * Each undeclared name once, at its first use, with its count: a config of 6,500 uses of one name
 * is one problem, not 6,500 (an answer lists MAX_DETAILS problems and counts the rest).
 */
function undeclaredPlaceholders(checks: { config: Record<string, unknown> }[], declared: Set<string>) {
  const found = new Map<string, { path: (string | number)[]; name: string; uses: number }>();
  checks.forEach((c, i) => {
    for (const { path, name } of placeholders(c.config, ['checks', i, 'config'])) {
      if (declared.has(name)) continue;
      const seen = found.get(name);
      if (seen) seen.uses++;
      else found.set(name, { path, name, uses: 1 });
    }
  });
  return [...found.values()];
}

/** A placeholder's name as an error repeats it: a name is at most 64 characters, the inside of `{{ }}` need not be. */
const shown = (name: string) => (name.length > 64 ? `${name.slice(0, 64)}…` : name);

export type TemplateSchema = z.output<typeof templateSchema>;

function defaultProblem(type: VariableType, value: unknown, allowed: string[] | undefined): string | undefined {
  // A default is a value like any other: one a contract could not be given is refused here.
  if (typeof value === 'string' && Buffer.byteLength(value) > MAX_VARIABLE_VALUE_BYTES)
    return `At most ${MAX_VARIABLE_VALUE_BYTES} bytes (UTF-8), like any value of the variable.`;
  switch (type) {
    case 'string':
      if (typeof value !== 'string') return 'Must be a string, like the variable.';
      if (allowed && !allowed.includes(value)) return 'Must be one of the enum values.';
      return undefined;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'Must be a number, like the variable.';
    case 'integer':
      return Number.isSafeInteger(value) ? undefined : 'Must be an integer, like the variable.';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'Must be true or false, like the variable.';
    case 'url':
      return typeof value === 'string' && isHttpUrl(value) ? undefined : 'Must be an http(s) URL, like the variable.';
  }
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** Every `{{name}}` in the strings of a config value, at any depth, with the path of its string. */
export function placeholders(value: unknown, path: (string | number)[]): { path: (string | number)[]; name: string }[] {
  if (typeof value === 'string') return [...value.matchAll(PLACEHOLDER)].map((m) => ({ path, name: m[1]!.trim() }));
  if (Array.isArray(value)) return value.flatMap((v, i) => placeholders(v, [...path, i]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => placeholders(v, [...path, k]));
  }
  return [];
}

/**
 * A contract's variables against its template's declared ones (docs/api.md "Marketplace", a template's `schema`):
 * every required one present, types and enums respected, no unknown names, defaults filled in.
 * Then `{{name}}` in the template's checks is replaced by the values.
 */
import { detailPath, type ErrorDetail, validationError } from '../core/errors.ts';
import {
  type DeclaredVariable,
  MAX_VARIABLE_VALUE_BYTES,
  type TemplateCheck,
  type Values,
} from '../marketplace/templates/variables.ts';
import { MAX_CONTRACT_BYTES } from './schemas.ts';

function typeProblem(variable: DeclaredVariable, value: unknown): string | undefined {
  if (typeof value === 'string' && Buffer.byteLength(value) > MAX_VARIABLE_VALUE_BYTES) {
    return `At most ${MAX_VARIABLE_VALUE_BYTES} bytes (UTF-8).`;
  }
  switch (variable.type) {
    case 'string':
      if (typeof value !== 'string') return 'Expected a string.';
      break;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'Expected a number.';
      break;
    case 'integer':
      if (!Number.isSafeInteger(value)) return 'Expected an integer.';
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return 'Expected true or false.';
      break;
    case 'url':
      if (typeof value !== 'string' || !URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
        return 'Expected an http or https URL.';
      break;
  }
  if (variable.enum && !variable.enum.includes(value as string)) return `Expected one of: ${variable.enum.join(', ')}.`;
  return undefined;
}

export function resolveVariables(declared: readonly DeclaredVariable[], given: Values): Values {
  const details: ErrorDetail[] = [];
  const byName = new Map(declared.map((v) => [v.name, v]));
  for (const name of Object.keys(given)) {
    if (!byName.has(name))
      details.push({
        path: detailPath(['variables', name]),
        message: 'The template declares no variable of this name.',
      });
  }
  const values: Values = {};
  for (const variable of declared) {
    const path = `variables.${variable.name}`;
    const value = Object.hasOwn(given, variable.name) ? given[variable.name] : variable.default;
    if (value === undefined) {
      if (variable.required !== false) details.push({ path, message: 'Required.' });
      continue;
    }
    const problem = typeProblem(variable, value);
    if (problem) details.push({ path, message: problem });
    else values[variable.name] = value;
  }
  if (details.length) throw validationError(details, 'The variables do not match the template.');
  return values;
}

const PLACEHOLDER = /\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}$/;

/** Own properties only: `{{constructor}}` must never find what every object inherits. */
const ownValue = (values: Values, name: string): unknown => (Object.hasOwn(values, name) ? values[name] : undefined);

/**
 * Fills placeholders in every string of a check's config (the only place a template may use them). A string that is exactly one
 * placeholder takes the variable's value with its type (a number stays a number); inside longer
 * text the value is written as text. An optional variable left unset becomes null / "".
 */
export function fillPlaceholders(value: unknown, values: Values): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return ownValue(values, whole[1]!) ?? null;
    return value.replace(PLACEHOLDER, (_, name: string) => {
      const given = ownValue(values, name);
      return given === undefined ? '' : String(given);
    });
  }
  if (Array.isArray(value)) return value.map((v) => fillPlaceholders(v, values));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillPlaceholders(v, values)]));
  }
  return value;
}

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? 'null');
/** What a text adds inside a JSON string literal, escapes included, quotes not. */
const textBytes = (text: string): number => jsonBytes(text) - 2;

/** Per variable, once: the JSON size of its value standing alone and written into text. */
function measures(values: Values): { whole(name: string): number; inText(name: string): number } {
  const inText = new Map<string, number>();
  return {
    whole: (name) => jsonBytes(ownValue(values, name) ?? null),
    inText: (name) => {
      let bytes = inText.get(name);
      if (bytes === undefined) {
        const given = ownValue(values, name);
        bytes = given === undefined ? 0 : textBytes(String(given));
        inText.set(name, bytes);
      }
      return bytes;
    },
  };
}

/**
 * Bytes of `JSON.stringify(fillPlaceholders(value, values))`, reckoned from the template and one
 * measure per variable, so `{{a}}` written 6,000 times costs 6,000 additions instead of 6,000
 * copies of `a`. Exact for well-formed text; a lone surrogate next to a placeholder (only in
 * templates stored before such text was refused) can only make it larger than the real size.
 */
export function filledJsonBytes(value: unknown, values: Values, measure = measures(values)): number {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return measure.whole(whole[1]!);
    let bytes = 2;
    let from = 0;
    for (const m of value.matchAll(PLACEHOLDER)) {
      bytes += textBytes(value.slice(from, m.index)) + measure.inText(m[1]!);
      from = m.index + m[0].length;
    }
    return bytes + textBytes(value.slice(from));
  }
  if (Array.isArray(value)) {
    return (
      2 + Math.max(0, value.length - 1) + value.reduce((sum: number, v) => sum + filledJsonBytes(v, values, measure), 0)
    );
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    return (
      2 +
      Math.max(0, entries.length - 1) +
      entries.reduce((sum, [k, v]) => sum + jsonBytes(k) + 1 + filledJsonBytes(v, values, measure), 0)
    );
  }
  return jsonBytes(value);
}

/**
 * A contract's checks with the variables filled in, refused with a 400 before a single copy is made
 * when the contract (variables and filled checks, as JSON) would exceed MAX_CONTRACT_BYTES.
 */
export function fillChecks(checks: readonly TemplateCheck[], variables: Values): TemplateCheck[] {
  const measure = measures(variables);
  // {"variables":…,"checks":[…]}: the checks without their config, then each config as it will be filled.
  const frame = jsonBytes({ variables, checks: checks.map((check) => ({ ...check, config: null })) });
  const bytes = checks.reduce(
    (sum, check) => sum - jsonBytes(null) + filledJsonBytes(check.config, variables, measure),
    frame,
  );
  if (bytes > MAX_CONTRACT_BYTES) {
    throw validationError([
      {
        path: 'variables',
        message: `The contract (variables and the checks filled in with them) would be ${bytes} bytes as JSON; at most ${MAX_CONTRACT_BYTES}.`,
      },
    ]);
  }
  return checks.map((check) => ({
    ...check,
    config: fillPlaceholders(check.config, variables) as TemplateCheck['config'],
  }));
}

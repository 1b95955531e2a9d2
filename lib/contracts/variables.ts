import { validationError, type ErrorDetail } from '../http/errors.ts';

/**
 * A contract's variables against its template's declared ones (API.md "Schema elements"):
 * every required one present, types and enums respected, no unknown names, defaults filled in.
 * Then `{{name}}` in the template's checks is replaced by the values.
 */
export interface DeclaredVariable {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'url';
  required?: boolean;
  default?: unknown;
  enum?: string[];
}

export type Values = Record<string, unknown>;

function typeProblem(variable: DeclaredVariable, value: unknown): string | undefined {
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
      if (typeof value !== 'string' || !URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) return 'Expected an http or https URL.';
      break;
  }
  if (variable.enum && !variable.enum.includes(value as string)) return `Expected one of: ${variable.enum.join(', ')}.`;
  return undefined;
}

export function resolveVariables(declared: readonly DeclaredVariable[], given: Values): Values {
  const details: ErrorDetail[] = [];
  const byName = new Map(declared.map((v) => [v.name, v]));
  for (const name of Object.keys(given)) {
    if (!byName.has(name)) details.push({ path: `variables.${name}`, message: 'The template declares no variable of this name.' });
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
const valueOf = (values: Values, name: string): unknown => (Object.hasOwn(values, name) ? values[name] : undefined);

/**
 * Fills placeholders in every string of a check's config (the only place a template may use them). A string that is exactly one
 * placeholder takes the variable's value with its type (a number stays a number); inside longer
 * text the value is written as text. An optional variable left unset becomes null / "".
 */
export function fillPlaceholders(value: unknown, values: Values): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return valueOf(values, whole[1]!) ?? null;
    return value.replace(PLACEHOLDER, (_, name: string) => {
      const given = valueOf(values, name);
      return given === undefined ? '' : String(given);
    });
  }
  if (Array.isArray(value)) return value.map((v) => fillPlaceholders(v, values));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillPlaceholders(v, values)]));
  }
  return value;
}

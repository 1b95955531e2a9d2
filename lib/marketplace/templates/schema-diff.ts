/**
 * The difference between two versions' schemas, computed from the schemas (never declared by the
 * author), and whether it breaks what a contract made from the older one could send. Breaking, as
 * lib/contracts/variables.ts refuses values: a required variable without a default added (or an
 * optional one made so), a variable removed (a value for it is now an unknown name), its type
 * changed, an enum value taken away, or a check removed (a contract of the new version no longer
 * verifies it). Everything else (a new optional variable, a new check, a changed check config,
 * words) is not breaking.
 */
import type { DeclaredVariable, TemplateCheck } from './variables.ts';

interface SchemaLike {
  variables: DeclaredVariable[];
  checks: TemplateCheck[];
}

export interface ElementChange {
  name: string;
  /** Which fields differ (`type`, `required`, `default`, `enum`, `description`, `config`). */
  fields: string[];
  breaking: boolean;
}

export interface SchemaDiff {
  variables: { added: string[]; removed: string[]; changed: ElementChange[] };
  checks: { added: string[]; removed: string[]; changed: ElementChange[] };
  breaking: boolean;
  /** Why it is breaking, one line each (empty when it is not). */
  breaking_reasons: string[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const mustBeGiven = (v: DeclaredVariable) => v.required !== false && v.default === undefined;

function variableChange(
  before: DeclaredVariable,
  after: DeclaredVariable,
  reasons: string[],
): ElementChange | undefined {
  const fields = (['type', 'required', 'default', 'enum', 'description'] as const).filter((f) => {
    if (f === 'required') return (before.required !== false) !== (after.required !== false);
    return !same((before as unknown as Record<string, unknown>)[f], (after as unknown as Record<string, unknown>)[f]);
  });
  if (fields.length === 0) return undefined;
  const why: string[] = [];
  if (before.type !== after.type) why.push(`variable ${after.name}: type ${before.type} → ${after.type}`);
  if (!mustBeGiven(before) && mustBeGiven(after)) why.push(`variable ${after.name}: now required, without a default`);
  const lost = after.enum ? (before.enum ?? ['(any value)']).filter((v) => !after.enum!.includes(v)) : [];
  if (lost.length > 0) why.push(`variable ${after.name}: enum no longer allows ${lost.join(', ')}`);
  reasons.push(...why);
  return { name: after.name, fields, breaking: why.length > 0 };
}

function checkChange(before: TemplateCheck, after: TemplateCheck): ElementChange | undefined {
  const fields = (['type', 'description', 'config'] as const).filter((f) => !same(before[f], after[f]));
  return fields.length === 0 ? undefined : { name: after.id, fields, breaking: false };
}

export function diffSchemas(from: SchemaLike, to: SchemaLike): SchemaDiff {
  const reasons: string[] = [];
  const fromVars = new Map(from.variables.map((v) => [v.name, v]));
  const toVars = new Map(to.variables.map((v) => [v.name, v]));
  const fromChecks = new Map(from.checks.map((c) => [c.id, c]));
  const toChecks = new Map(to.checks.map((c) => [c.id, c]));

  const variables = {
    added: to.variables.filter((v) => !fromVars.has(v.name)).map((v) => v.name),
    removed: from.variables.filter((v) => !toVars.has(v.name)).map((v) => v.name),
    changed: [] as ElementChange[],
  };
  for (const name of variables.added)
    if (mustBeGiven(toVars.get(name)!)) reasons.push(`variable ${name}: added, required, without a default`);
  for (const name of variables.removed) reasons.push(`variable ${name}: removed`);
  for (const v of to.variables) {
    const before = fromVars.get(v.name);
    const change = before && variableChange(before, v, reasons);
    if (change) variables.changed.push(change);
  }

  const checks = {
    added: to.checks.filter((c) => !fromChecks.has(c.id)).map((c) => c.id),
    removed: from.checks.filter((c) => !toChecks.has(c.id)).map((c) => c.id),
    changed: [] as ElementChange[],
  };
  for (const id of checks.removed) reasons.push(`check ${id}: removed`);
  for (const c of to.checks) {
    const before = fromChecks.get(c.id);
    const change = before && checkChange(before, c);
    if (change) checks.changed.push(change);
  }
  return { variables, checks, breaking: reasons.length > 0, breaking_reasons: reasons };
}

/** One line for an event or a list: counts, and "breaking" when it is. */
export function diffSummary(diff: SchemaDiff): string {
  const part = (what: string, d: { added: string[]; removed: string[]; changed: ElementChange[] }) =>
    `${what} +${d.added.length} -${d.removed.length} ~${d.changed.length}`;
  return `${part('variables', diff.variables)}, ${part('checks', diff.checks)}${diff.breaking ? ' (breaking)' : ''}`;
}

import { describe, expect, it } from 'vitest';
import { diffSchemas, diffSummary } from '../../lib/marketplace/templates/schema-diff.ts';
import type { DeclaredVariable, TemplateCheck } from '../../lib/marketplace/templates/variables.ts';

const check = (id: string, config: Record<string, unknown> = { url: '{{endpoint}}' }): TemplateCheck => ({
  id,
  type: 'http',
  config,
});
const v = (name: string, extra: Partial<DeclaredVariable> = {}): DeclaredVariable => ({
  name,
  type: 'string',
  ...extra,
});
const base = { variables: [v('endpoint', { type: 'url' }), v('region', { required: false })], checks: [check('up')] };

describe('the computed diff between two schemas and its breaking rule', () => {
  it('an identical schema is no change and not breaking', () => {
    const d = diffSchemas(base, structuredClone(base));
    expect(d).toEqual({
      variables: { added: [], removed: [], changed: [] },
      checks: { added: [], removed: [], changed: [] },
      breaking: false,
      breaking_reasons: [],
    });
  });

  it('adding an optional variable, one with a default, a check, or changing a config is not breaking', () => {
    const to = {
      variables: [...base.variables, v('tier', { required: false }), v('retries', { type: 'integer', default: 3 })],
      checks: [check('up', { url: '{{endpoint}}/health' }), check('tls')],
    };
    const d = diffSchemas(base, to);
    expect(d.variables.added).toEqual(['tier', 'retries']);
    expect(d.checks.added).toEqual(['tls']);
    expect(d.checks.changed).toEqual([{ name: 'up', fields: ['config'], breaking: false }]);
    expect(d.breaking).toBe(false);
  });

  it.each([
    [
      'a required variable added',
      { ...base, variables: [...base.variables, v('token')] },
      'variable token: added, required, without a default',
    ],
    [
      'a type changed',
      { ...base, variables: [v('endpoint', { type: 'string' }), base.variables[1]!] },
      'variable endpoint: type url → string',
    ],
    ['a check removed', { ...base, checks: [] }, 'check up: removed'],
    ['a variable removed', { ...base, variables: [base.variables[0]!] }, 'variable region: removed'],
    [
      'an optional variable made required',
      { ...base, variables: [base.variables[0]!, v('region')] },
      'variable region: now required, without a default',
    ],
    [
      'an enum narrowed',
      { ...base, variables: [base.variables[0]!, v('region', { required: false, enum: ['eu'] })] },
      'variable region: enum no longer allows (any value)',
    ],
  ])('%s is breaking', (_what, to, reason) => {
    const d = diffSchemas(base, to);
    expect(d.breaking).toBe(true);
    expect(d.breaking_reasons).toEqual([reason]);
    expect(diffSummary(d)).toMatch(/\(breaking\)$/);
  });

  it('the reverse of a breaking addition is a breaking removal, and the summary counts both sides', () => {
    const to = { ...base, variables: [...base.variables, v('token')] };
    expect(diffSummary(diffSchemas(base, to))).toBe('variables +1 -0 ~0, checks +0 -0 ~0 (breaking)');
    expect(diffSchemas(to, base).breaking_reasons).toEqual(['variable token: removed']);
  });
});

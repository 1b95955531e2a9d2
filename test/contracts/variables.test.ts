import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/http/errors.ts';
import { fillPlaceholders, resolveVariables, type DeclaredVariable } from '../../lib/contracts/variables.ts';

const declared: DeclaredVariable[] = [
  { name: 'region', type: 'string', enum: ['eu', 'us'] },
  { name: 'retries', type: 'integer', required: false, default: 3 },
  { name: 'ratio', type: 'number', required: false },
];

function problems(given: Record<string, unknown>): string[] {
  try {
    resolveVariables(declared, given);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return (err as AppError).details!.map((d) => `${d.path}: ${d.message}`);
  }
}

describe('resolveVariables', () => {
  it('fills defaults, keeps given values, leaves unset optionals out', () => {
    expect(resolveVariables(declared, { region: 'eu' })).toEqual({ region: 'eu', retries: 3 });
    expect(resolveVariables(declared, { region: 'us', retries: 0, ratio: 0.5 })).toEqual({ region: 'us', retries: 0, ratio: 0.5 });
  });

  it('names each problem with its path', () => {
    expect(problems({})).toEqual(['variables.region: Required.']);
    expect(problems({ region: 'mars' })).toEqual(['variables.region: Expected one of: eu, us.']);
    expect(problems({ region: 'eu', retries: '3', ratio: Infinity, x: 1 })).toEqual([
      'variables.x: The template declares no variable of this name.',
      'variables.retries: Expected an integer.',
      'variables.ratio: Expected a number.',
    ]);
    expect(problems({ region: null })).toEqual(['variables.region: Expected a string.']);
  });

  it('a required variable with a default is satisfied by the default', () => {
    expect(resolveVariables([{ name: 'a', type: 'boolean', default: false }], {})).toEqual({ a: false });
  });

  it('does not treat inherited object keys as given', () => {
    expect(problems(JSON.parse('{"region":"eu","__proto__":{"x":1}}'))).toEqual(['variables.__proto__: The template declares no variable of this name.']);
  });
});

describe('fillPlaceholders', () => {
  const values = { host: 'example.com', port: 8443, tls: true };

  it('a whole-string placeholder keeps the value’s type; inside text it becomes text', () => {
    expect(fillPlaceholders({ port: '{{port}}', tls: '{{ tls }}', url: 'https://{{host}}:{{port}}/' }, values)).toEqual({ port: 8443, tls: true, url: 'https://example.com:8443/' });
  });

  it('walks arrays and nested objects, leaves other values and unknown braces alone', () => {
    expect(fillPlaceholders({ list: ['{{host}}', 1, null, { deep: '{{port}}' }], raw: '{not} {{ }}' }, values)).toEqual({ list: ['example.com', 1, null, { deep: 8443 }], raw: '{not} {{ }}' });
  });

  it('an optional variable left unset becomes null (whole) or empty text (inside)', () => {
    expect(fillPlaceholders({ a: '{{missing}}', b: 'x{{missing}}y' }, values)).toEqual({ a: null, b: 'xy' });
  });
});

describe('fuzz: any JSON variables get a value or a validation error, nothing else', () => {
  const samples: unknown[] = ['', 'eu', 'us', 'x'.repeat(300), 0, -1, 3, 2.5, 1e308, true, false, null, [], ['eu'], {}, { a: 1 }];
  const pick = <T>(list: readonly T[], seed: number): T => list[seed % list.length]!;

  it('holds for 2000 random inputs', () => {
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 2000; i++) {
      const given: Record<string, unknown> = {};
      for (const name of ['region', 'retries', 'ratio', 'other']) if (next() % 2) given[name] = pick(samples, next());
      try {
        const values = resolveVariables(declared, given);
        expect(['eu', 'us']).toContain(values['region']);
        expect(Number.isSafeInteger(values['retries'])).toBe(true);
        expect(fillPlaceholders({ a: '{{region}}-{{retries}}', b: ['{{ratio}}'] }, values)).toBeTypeOf('object');
      } catch (err) {
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).code).toBe('validation_error');
      }
    }
  });
});

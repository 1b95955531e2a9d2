import { describe, expect, it } from 'vitest';
import { MAX_CONTRACT_BYTES } from '../../lib/contracts/schemas.ts';
import { fillChecks, filledJsonBytes, fillPlaceholders, resolveVariables } from '../../lib/contracts/variables.ts';
import { AppError } from '../../lib/core/errors.ts';
import { type DeclaredVariable, MAX_VARIABLE_VALUE_BYTES } from '../../lib/marketplace/templates/variables.ts';

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
    expect(resolveVariables(declared, { region: 'us', retries: 0, ratio: 0.5 })).toEqual({
      region: 'us',
      retries: 0,
      ratio: 0.5,
    });
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
    expect(problems(JSON.parse('{"region":"eu","__proto__":{"x":1}}'))).toEqual([
      'variables.__proto__: The template declares no variable of this name.',
    ]);
  });
});

describe('fillPlaceholders', () => {
  const values = { host: 'example.com', port: 8443, tls: true };

  it('a whole-string placeholder keeps the value’s type; inside text it becomes text', () => {
    expect(fillPlaceholders({ port: '{{port}}', tls: '{{ tls }}', url: 'https://{{host}}:{{port}}/' }, values)).toEqual(
      { port: 8443, tls: true, url: 'https://example.com:8443/' },
    );
  });

  it('walks arrays and nested objects, leaves other values and unknown braces alone', () => {
    expect(fillPlaceholders({ list: ['{{host}}', 1, null, { deep: '{{port}}' }], raw: '{not} {{ }}' }, values)).toEqual(
      { list: ['example.com', 1, null, { deep: 8443 }], raw: '{not} {{ }}' },
    );
  });

  it('an optional variable left unset becomes null (whole) or empty text (inside)', () => {
    expect(fillPlaceholders({ a: '{{missing}}', b: 'x{{missing}}y' }, values)).toEqual({ a: null, b: 'xy' });
  });
});

describe('fuzz: any JSON variables get a value or a validation error, nothing else', () => {
  const samples: unknown[] = [
    '',
    'eu',
    'us',
    'x'.repeat(300),
    0,
    -1,
    3,
    2.5,
    1e308,
    true,
    false,
    null,
    [],
    ['eu'],
    {},
    { a: 1 },
  ];
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

describe('variable values are capped', () => {
  const text: DeclaredVariable[] = [
    { name: 's', type: 'string' },
    { name: 'u', type: 'url', required: false },
  ];

  it(`a string or url of ${MAX_VARIABLE_VALUE_BYTES} bytes is taken, one byte more is a 400 on the variable`, () => {
    expect(resolveVariables(text, { s: 'x'.repeat(MAX_VARIABLE_VALUE_BYTES) })['s']).toHaveLength(
      MAX_VARIABLE_VALUE_BYTES,
    );
    const url = `https://example.com/${'p'.repeat(MAX_VARIABLE_VALUE_BYTES - 20)}`;
    expect(Buffer.byteLength(url)).toBe(MAX_VARIABLE_VALUE_BYTES);
    expect(resolveVariables(text, { s: 'x', u: url })['u']).toBe(url);
    for (const given of [{ s: 'x'.repeat(MAX_VARIABLE_VALUE_BYTES + 1) }, { s: 'x', u: `${url}p` }]) {
      expect(() => resolveVariables(text, given)).toThrow(AppError);
    }
  });

  it('counts UTF-8 bytes, not characters', () => {
    const euro = '€'.repeat(Math.floor(MAX_VARIABLE_VALUE_BYTES / 3) + 1); // 3 bytes each
    try {
      resolveVariables(text, { s: euro });
      expect.unreachable('a value over the cap was taken');
    } catch (err) {
      expect((err as AppError).details).toEqual([
        { path: 'variables.s', message: `At most ${MAX_VARIABLE_VALUE_BYTES} bytes (UTF-8).` },
      ]);
    }
  });
});

describe('filledJsonBytes: the filled size, reckoned without filling', () => {
  const values = { host: 'exämple.com', port: 8443, tls: true, q: 'say "hi"\\\n\t\u0001 😀 </script>', empty: '' };
  const configs: unknown[] = [
    {},
    [],
    { url: 'https://{{host}}:{{port}}/', tls: '{{tls}}', port: '{{ port }}' },
    { list: ['{{host}}', 1, -2.5, null, true, { deep: ['{{q}}', 'x{{q}}y{{q}}'] }], raw: '{not} {{ }} {{Upper}}' },
    { missing: '{{nothing}}', inText: 'a{{nothing}}b', emptyWhole: '{{empty}}', emptyIn: '<{{empty}}>' },
    { 'key "with" \\ escapes': '{{q}}', ключ: 'значение {{host}}', '😀': ['{{tls}} and {{port}}'] },
    { n: 1e-7, big: 9007199254740991, f: 0.1, neg: -0 },
    { many: '{{host}}'.repeat(50), mixed: Array.from({ length: 20 }, (_, i) => (i % 2 ? `{{q}}-${i}` : i)) },
  ];

  it.each(configs.map((c) => [JSON.stringify(c).slice(0, 60), c] as const))(
    'equals the filled JSON size for %s',
    (_, config) => {
      expect(filledJsonBytes(config, values)).toBe(Buffer.byteLength(JSON.stringify(fillPlaceholders(config, values))));
    },
  );
});

describe('fillChecks', () => {
  const check = (config: Record<string, unknown>) => ({ id: 'c', type: 't', description: 'd', config });

  it('fills every check and refuses, on variables, a contract over the bound', () => {
    const filled = fillChecks([check({ a: '{{s}}' }), check({ b: 'x{{s}}' })], { s: 'v' });
    expect(filled).toEqual([check({ a: 'v' }), check({ b: 'xv' })]);
    try {
      fillChecks([check({ a: '{{s}}'.repeat(10) })], { s: 'x'.repeat(MAX_CONTRACT_BYTES / 8) });
      expect.unreachable('an oversized contract was filled');
    } catch (err) {
      expect((err as AppError).details).toEqual([
        { path: 'variables', message: expect.stringMatching(/would be \d+ bytes as JSON; at most 131072/) },
      ]);
    }
  });

  it('the bound is the exact JSON size of {variables, checks}: one byte under passes, at the bound passes, one over fails', () => {
    const checks = [check({ a: 'pre {{s}} post' }), check({ b: ['{{s}}', '{{n}}'] })];
    const sizeWith = (length: number) =>
      Buffer.byteLength(
        JSON.stringify({
          variables: { s: 'x'.repeat(length), n: 1 },
          checks: fillPlaceholders(checks, { s: 'x'.repeat(length), n: 1 }),
        }),
      );
    // Each character of s appears three times in the filled contract (variables, a, b[0]).
    const base = sizeWith(0);
    const fits = Math.floor((MAX_CONTRACT_BYTES - base) / 3);
    expect(sizeWith(fits)).toBeLessThanOrEqual(MAX_CONTRACT_BYTES);
    expect(sizeWith(fits + 1)).toBeGreaterThan(MAX_CONTRACT_BYTES);
    expect(() => fillChecks(checks, { s: 'x'.repeat(fits), n: 1 })).not.toThrow();
    expect(() => fillChecks(checks, { s: 'x'.repeat(fits + 1), n: 1 })).toThrow(AppError);
  });

  it('refuses without building a filled copy: each value is read once, not once per placeholder', () => {
    // A value that counts how often it is turned into text; filling would do it per placeholder.
    let reads = 0;
    const counting = {
      toString: () => {
        reads++;
        return 'x'.repeat(MAX_VARIABLE_VALUE_BYTES);
      },
    };
    const config = { a: '{{s}}'.repeat(6000) };
    expect(() => fillChecks([check(config)], { s: counting })).toThrow(AppError);
    expect(reads).toBe(1);
    // The same config with a short value is filled, and then every placeholder is written.
    reads = 0;
    const short = {
      toString: () => {
        reads++;
        return 'y';
      },
    };
    expect(fillChecks([check(config)], { s: short })[0]!.config).toEqual({ a: 'y'.repeat(6000) });
    expect(reads).toBe(6001);
  });
});

import { describe, expect, it } from 'vitest';
import { INDEXES } from '../../lib/store/table.ts';
import { sourceFiles, tokenize, tokensOf } from './source-files.ts';

/**
 * lib/store/keys.ts says keys are built nowhere else (it and its builders, lib/store/key-builders.ts,
 * one export each so bundles keep only theirs): no other file writes a key prefix (`TPL#`,
 * `CAT#`, …) or names an attribute that places an item in an index partition (`GSI1PK`, `listAll`,
 * …). Comments may mention them; code may not. The sort attributes the domain computes
 * (`popKey`, `recentKey`, `ratingKey`, `trendKey`: counts and dates the lists order by) are item
 * data and stay with their domain (docs/decisions.md, "Code layout").
 */
const KEY_PREFIX = /(^|[^A-Za-z0-9])[A-Z][A-Z_]+#/;
const PLACEMENT_ATTRIBUTES = new Set<string>([
  ...Object.values(INDEXES).map((index) => index.partitionKey),
  INDEXES.gsi1.sortKey,
  INDEXES.featured.sortKey,
]);

function offences(file: string, tokens = tokensOf(file)): string[] {
  return tokens.flatMap((t) => {
    const where = `${file}:${t.line}`;
    if (t.kind === 'string' || t.kind === 'template') {
      if (KEY_PREFIX.test(t.text)) return [`${where} key prefix in "${t.text}"`];
      if (PLACEMENT_ATTRIBUTES.has(t.text)) return [`${where} index attribute "${t.text}"`];
    }
    if (t.kind === 'word' && PLACEMENT_ATTRIBUTES.has(t.text)) return [`${where} index attribute ${t.text}`];
    return [];
  });
}

const KEY_DESIGN = ['lib/store/keys.ts', 'lib/store/key-builders.ts', 'lib/store/table.ts'];

describe('the key design lives in lib/store/keys.ts, its builders and table.ts', () => {
  it('sees prefixes and index attributes in code, not in comments', () => {
    const sample = [
      '// TPL# in a comment, and GSI1PK',
      '/* CAT# and listAll */',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a sample of source code, whose template literal the tokenizer must read
      "const a = { GSI1PK: `WSINST#${ws}`, b: 'x/y' };",
      'const r = /TPL#/g; const d = a.b / 2;',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a sample of source code, whose template literal the tokenizer must read
      "item['listAll'] = `${day}#${id}`;",
    ].join('\n');
    expect(offences('sample.ts', tokenize(sample))).toEqual([
      'sample.ts:3 index attribute GSI1PK',
      'sample.ts:3 key prefix in "WSINST#"',
      'sample.ts:5 index attribute "listAll"',
    ]);
    expect(offences('lib/store/key-builders.ts').length).toBeGreaterThan(10);
  });

  it('no other file in lib/, functions/ or local/ builds a key or names an index placement attribute', () => {
    const files = sourceFiles('lib', 'functions', 'local').filter((f) => !KEY_DESIGN.includes(f));
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((f) => offences(f))).toEqual([]);
  });
});

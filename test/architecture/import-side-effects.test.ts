import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, repoRoot, sourceFiles, type Token, tokenize, tokensOf } from './source-files.ts';

/**
 * Both test tiers run with `isolate: false` (vitest.config.ts): a worker imports each module once
 * for all the files it runs, and the tiers' setup files put the environment back after each file.
 * So what a module does at import happens in a worker's first file only: an environment variable
 * it sets is gone for the next file, a hook it registers (afterEach, …) is registered for the first
 * file only. Every module a test file imports, directly or not, is checked here for both at its top
 * level; the setup files, which vitest runs again for every file, are where such things belong
 * (CONTRIBUTING.md, "Tests").
 */
const SETUP_FILES = ['test/support/per-file-table.ts', 'test/support/unit-guard.ts'];
const HOOKS = new Set(['beforeAll', 'afterAll', 'beforeEach', 'afterEach']);

/** `process.env` written at the top level of a module, and test hooks registered there: `line: what`. */
function importSideEffects(tokens: Token[]): string[] {
  const found: string[] = [];
  let depth = 0;
  const text = (i: number) => tokens[i]?.text;
  const isEnv = (i: number) => text(i) === 'process' && text(i + 1) === '.' && text(i + 2) === 'env';
  /** The index just past `process.env.NAME` or `process.env[...]` starting at i. */
  const pastTarget = (i: number): number => {
    let j = i + 3;
    if (text(j) === '.') return j + 2;
    if (text(j) !== '[') return j;
    for (let open = 0; j < tokens.length; j++) {
      if (text(j) === '[') open++;
      if (text(j) === ']' && --open === 0) return j + 1;
    }
    return j;
  };
  const isAssignment = (j: number) => {
    // `=`, `??=`, `||=`, `&&=`, `+=`; not `==` or `===`.
    while (['?', '|', '&', '+'].includes(text(j) ?? '')) j++;
    return text(j) === '=' && text(j + 1) !== '=';
  };
  tokens.forEach((t, i) => {
    if (t.kind === 'punct' && ['{', '(', '['].includes(t.text)) depth++;
    if (t.kind === 'punct' && ['}', ')', ']'].includes(t.text)) depth--;
    if (depth !== 0 || t.kind !== 'word') return;
    if (isEnv(i) && isAssignment(pastTarget(i))) found.push(`${t.line}: sets process.env`);
    if (t.text === 'delete' && isEnv(i + 1)) found.push(`${t.line}: deletes from process.env`);
    if (t.text === 'Object' && text(i + 2) === 'assign' && isEnv(i + 4))
      found.push(`${t.line}: assigns to process.env`);
    if (HOOKS.has(t.text) && text(i + 1) === '(' && text(i - 1) !== '.' && text(i - 1) !== 'function')
      found.push(`${t.line}: registers ${t.text}`);
  });
  return found;
}

/** Every repository module the test files and the setup files import, directly or through others (not the test files). */
function modulesTestsImport(): string[] {
  const tests = sourceFiles('test', 'lib', 'infra', 'local', 'client', 'scripts').filter((f) => f.endsWith('.test.ts'));
  const seen = new Set<string>();
  const queue = [...tests, ...SETUP_FILES].flatMap((file) => importsOf(file));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file) || !file.endsWith('.ts') || !existsSync(join(repoRoot, file))) continue;
    seen.add(file);
    queue.push(...importsOf(file));
  }
  return [...seen].filter((f) => !f.endsWith('.test.ts')).sort();
}

describe('modules do nothing at import that a file after the first would miss', () => {
  it('sees environment writes and hooks at the top level, not inside functions', () => {
    const sample = [
      "process.env['DEVELOPMENT_MODE'] = 'true';",
      'process.env.LOG_LEVEL ??= "silent";',
      "delete process.env['TABLE_NAME'];",
      'Object.assign(process.env, { A: "1" });',
      'afterEach(async () => { await close(); });',
      "if (process.env['X'] === 'y') log();",
      "export function useIt() { process.env['A'] = '1'; afterEach(() => undefined); }",
      "const f = () => { delete process.env['B']; };",
      'server.afterAll(1); // a method of the same name',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a sample of source code, whose template literal the tokenizer must read
      "const s = `${process.env['A']}`;",
    ].join('\n');
    expect(importSideEffects(tokenize(sample))).toEqual([
      '1: sets process.env',
      '2: sets process.env',
      '3: deletes from process.env',
      '4: assigns to process.env',
      '5: registers afterEach',
    ]);
  });

  it('no module a test imports sets the environment or registers a hook when imported', () => {
    const modules = modulesTestsImport();
    // The walk must reach the support modules, or this test would check nothing.
    expect(modules).toEqual(expect.arrayContaining(['test/support/lambda.ts', 'test/events/support.ts']));
    const offences = modules
      .filter((file) => !SETUP_FILES.includes(file))
      .flatMap((file) => importSideEffects(tokensOf(file)).map((what) => `${file}:${what}`));
    expect(
      offences,
      'a worker imports a module once for all its files: do this in a function the file calls, or in the setup files',
    ).toEqual([]);
  });
});

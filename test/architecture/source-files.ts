/**
 * The repository's TypeScript sources as tokens, for the tests that check its shape (key design,
 * import layers). A small tokenizer rather than a parser: it knows comments, strings, template
 * literals and regular expressions, which is all these checks need to tell code from prose. (The
 * TypeScript package here is the native compiler, which has no stable parsing API for scripts.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');

/** Every `.ts` file under `dirs` (paths relative to the repository, with forward slashes). */
export function sourceFiles(...dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) out.push(path);
    }
  };
  for (const dir of dirs) walk(dir);
  return out.sort();
}

export interface Token {
  /** `string`: a quoted string; `template`: the text of one part of a template literal. */
  kind: 'string' | 'template' | 'word' | 'regex' | 'punct';
  text: string;
  line: number;
}

const WORD_START = /[A-Za-z_$]/;
const WORD = /[A-Za-z0-9_$]/;
/** Words after which a `/` starts a regular expression rather than dividing. */
const BEFORE_REGEX = new Set([
  'return',
  'typeof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'yield',
  'await',
]);

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  let braces = 0;
  /** Brace depth at each open `${`: the `}` that brings the depth back there resumes the template. */
  const substitutions: number[] = [];
  const countLines = (text: string) => (line += text.split('\n').length - 1);

  const templatePart = () => {
    const start = i;
    const startLine = line;
    for (; i < src.length; i++) {
      if (src[i] === '\\') i++;
      else if (src[i] === '`') break;
      else if (src[i] === '$' && src[i + 1] === '{') break;
    }
    const text = src.slice(start, i);
    out.push({ kind: 'template', text, line: startLine });
    countLines(text);
    if (src[i] === '`') i++;
    else {
      substitutions.push(braces);
      i += 2;
    }
  };

  const regexAllowed = () => {
    const prev = out.at(-1);
    if (!prev) return true;
    // After a number (a punct token here) a `/` divides: `1 / (1 + x) / 2` is no regular expression.
    if (prev.kind === 'punct') return ![')', ']', '}'].includes(prev.text) && !/^[0-9]/.test(prev.text);
    return prev.kind === 'word' && BEFORE_REGEX.has(prev.text);
  };

  while (i < src.length) {
    const c = src[i]!;
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) i++;
    else if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      countLines(src.slice(i, end));
      i = end + 2;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      for (; j < src.length && src[j] !== c; j++) if (src[j] === '\\') j++;
      out.push({ kind: 'string', text: src.slice(i + 1, j), line });
      i = j + 1;
    } else if (c === '`') {
      i++;
      templatePart();
    } else if (c === '}' && substitutions.length && substitutions.at(-1) === braces) {
      substitutions.pop();
      i++;
      templatePart();
    } else if (WORD_START.test(c)) {
      let j = i + 1;
      while (j < src.length && WORD.test(src[j]!)) j++;
      out.push({ kind: 'word', text: src.slice(i, j), line });
      i = j;
    } else if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < src.length && /[0-9A-Za-z_.]/.test(src[j]!)) j++;
      out.push({ kind: 'punct', text: src.slice(i, j), line });
      i = j;
    } else if (c === '/' && regexAllowed()) {
      let j = i + 1;
      for (let inClass = false; j < src.length && (inClass || src[j] !== '/'); j++) {
        if (src[j] === '\\') j++;
        else if (src[j] === '[') inClass = true;
        else if (src[j] === ']') inClass = false;
      }
      j++;
      while (j < src.length && /[a-z]/.test(src[j]!)) j++;
      out.push({ kind: 'regex', text: src.slice(i, j), line });
      i = j;
    } else {
      if (c === '{') braces++;
      if (c === '}') braces--;
      out.push({ kind: 'punct', text: c, line });
      i++;
    }
  }
  return out;
}

export const tokensOf = (file: string): Token[] => tokenize(readFileSync(join(repoRoot, file), 'utf8'));

/** A relative import of `file` as a path from the repository root. */
export const resolveFrom = (file: string, specifier: string): string =>
  relative(repoRoot, resolve(repoRoot, file, '..', specifier)).replaceAll('\\', '/');

/**
 * What a file imports (static and dynamic imports, re-exports; `import type` too, since a type
 * import is a dependency of the design even when the bundle drops it): repository paths resolved
 * from the repository root, packages by their names.
 */
export function importsOf(file: string): string[] {
  const t = tokensOf(file);
  const out: string[] = [];
  t.forEach((token, i) => {
    if (token.kind !== 'string') return;
    const before = t[i - 1];
    const isImport =
      (before?.kind === 'word' && (before.text === 'from' || before.text === 'import')) ||
      (before?.text === '(' && t[i - 2]?.kind === 'word' && t[i - 2]!.text === 'import');
    if (!isImport) return;
    out.push(token.text.startsWith('.') ? resolveFrom(file, token.text) : token.text);
  });
  return out;
}

/**
 * The names a file imports as values (not `import type`, not `type` specifiers), each with the
 * module it comes from: a repository path resolved from the root, or a package name.
 */
export function valueImports(file: string, tokens: Token[] = tokensOf(file)): { from: string; name: string }[] {
  return tokens.flatMap((t, i) => {
    if (t.kind !== 'string' || tokens[i - 1]?.text !== 'from') return [];
    let start = i - 1;
    while (start > 0 && tokens[start]!.text !== 'import' && tokens[start]!.text !== 'export') start--;
    if (tokens[start + 1]?.text === 'type') return [];
    const clause = tokens.slice(start + 1, i - 1).filter((c) => c.text !== '{' && c.text !== '}');
    const from = t.text.startsWith('.') ? resolveFrom(file, t.text) : t.text;
    const specifiers: Token[][] = [[]];
    for (const c of clause) c.text === ',' ? specifiers.push([]) : specifiers.at(-1)!.push(c);
    return specifiers
      .filter((sp) => sp.length > 0 && sp[0]!.text !== 'type')
      .map((sp) => ({ from, name: sp[0]!.text }));
  });
}

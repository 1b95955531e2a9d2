/**
 * Which files make DynamoDB calls, for the layer test's "no DynamoDB call outside a store" rule: a
 * value import of the SDK's DynamoDB packages (commands, errors), a `db()` call, or a call of one of
 * the repository's own helpers in lib/store/ that sends a request (`transactWrite`, `batchGet`,
 * `conditionalUpdate`, `readIndexPage`, …). The helpers are found, not listed: a top-level function
 * of lib/store/ sends when its body calls `.send(`, `db()` or another such function, so a new
 * wrapper there is seen without anyone remembering to name it.
 */
import { sourceFiles, type Token, tokensOf, valueImports } from './source-files.ts';

const SDK_DYNAMODB = ['@aws-sdk/lib-dynamodb', '@aws-sdk/client-dynamodb'];
const DECLARES = new Set(['function', 'const', 'let', 'class']);

interface Declaration {
  name: string;
  exported: boolean;
  body: Token[];
}

/** A file's top-level declarations, each with its tokens up to the next one. */
function declarations(tokens: Token[]): Declaration[] {
  const out: Declaration[] = [];
  let depth = 0;
  tokens.forEach((token, i) => {
    if (token.kind === 'punct' && '{(['.includes(token.text)) depth++;
    else if (token.kind === 'punct' && '})]'.includes(token.text)) depth--;
    else if (depth === 0 && token.kind === 'word' && DECLARES.has(token.text)) {
      const name = tokens.slice(i + 1).find((t) => t.kind === 'word')?.text ?? '';
      const before = tokens.slice(Math.max(0, i - 2), i).map((t) => t.text);
      out.push({ name, exported: before.includes('export'), body: [] });
    }
    out.at(-1)?.body.push(token);
  });
  return out;
}

/** `name(` for one of `names`; with `orSend`, any `.send(` too (inside lib/store/, every client sent through is DynamoDB's). */
const calls = (body: Token[], names: ReadonlySet<string>, orSend = false): boolean =>
  body.some(
    (t, i) =>
      t.kind === 'word' &&
      body[i + 1]?.text === '(' &&
      (names.has(t.text) || (orSend && t.text === 'send' && body[i - 1]?.text === '.')),
  );

/** Exported functions of `storeFiles` that send a DynamoDB request, by name → the file that defines it. */
export function sendingHelpers(
  storeFiles: string[],
  tokens: (file: string) => Token[] = tokensOf,
): Map<string, string> {
  const declared = storeFiles.flatMap((file) => declarations(tokens(file)).map((d) => ({ ...d, file })));
  const sending = new Set<string>(['db']);
  for (let grew = true; grew; ) {
    grew = false;
    for (const d of declared) {
      if (!sending.has(d.name) && calls(d.body, sending, true)) {
        sending.add(d.name);
        grew = true;
      }
    }
  }
  return new Map(declared.filter((d) => d.exported && sending.has(d.name)).map((d) => [d.name, d.file]));
}

/**
 * Files that make a DynamoDB call: they import the SDK's DynamoDB commands or errors, or one of
 * `helpers` (to call it, or to hand it on: `options.write ?? batchWrite` is a call all the same).
 */
export function dynamoDbCallers(
  files: string[],
  helpers: Map<string, string>,
  tokens: (file: string) => Token[] = tokensOf,
): string[] {
  return files.filter((file) =>
    valueImports(file, tokens(file)).some(
      ({ from, name }) => SDK_DYNAMODB.includes(from) || helpers.get(name) === from,
    ),
  );
}

/** The helpers of the real lib/store/. */
export const storeHelpers = (): Map<string, string> => sendingHelpers(sourceFiles('lib/store'));

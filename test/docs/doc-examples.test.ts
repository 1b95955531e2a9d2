import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAGES } from '../../infra/stage-config.ts';
import { freePort, portInUse } from '../../local/ports.ts';
import { type Block, parseBlocks } from './blocks.ts';
import { type StartedRuntime, startRuntime } from './runtime.ts';
import { failure, readerPath, Sandbox } from './sandbox.ts';

/**
 * Every example of README.md and docs/*.md, run in document order against one `npm start`
 * (CONTRIBUTING.md, "Docs that run"; the block convention is in ./blocks.ts). A block fails on a
 * non-zero exit or an answer in the service's error format. A new docs/*.md is picked up as it is.
 */
const root = join(import.meta.dirname, '../..');
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const BLOCK_TIMEOUT_MS = 120_000;
// What a block may be fenced as; anything else (```js, ```shell) would silently go unrun.
const KNOWN_LANGS = new Set(['', 'sh', 'bash', 'ts', 'text', 'json', 'http']);
const scripts = Object.keys(
  (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts,
);

let runtime: StartedRuntime;
beforeAll(async () => {
  runtime = await startRuntime(root, 180_000);
}, 200_000);
afterAll(async () => {
  await runtime?.stop();
});

/** A shell's environment as a reader has it, pointed at the test's store (so `npm run admin`/`invoke` find it). */
function readerEnv(): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k, v]) => v !== undefined && !/^(npm_|VITEST|NODE_OPTIONS$)/.test(k)),
  ) as Record<string, string>;
  // The reader has the Node the README names (24), ahead of whatever `node` this machine has.
  const node24 = join(root, 'node_modules/node/bin');
  return { ...env, PATH: [node24, readerPath(process.env['PATH'])].join(delimiter), LOG_LEVEL: 'silent' };
}

/** A block the test does not run (`aws`, `outside`): it must still be valid bash whose npm scripts and stages exist. */
function checkNotRun(block: Block): void {
  if (block.lang !== 'sh' && block.lang !== 'bash') return;
  execFileSync('bash', ['-n'], { input: block.text });
  for (const [, script] of block.text.matchAll(/npm run (?:--silent )?([\w:-]+)/g))
    expect(scripts, `npm run ${script}`).toContain(script);
  for (const [, stage] of block.text.matchAll(/-c stage=([\w-]+)/g))
    expect(Object.keys(STAGES), `stage ${stage}`).toContain(stage);
}

for (const document of documents) {
  const blocks = parseBlocks(readFileSync(join(root, document), 'utf8'));
  if (blocks.length === 0) continue;
  describe(document, () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      const receiverPort = String(await freePort());
      const host = new URL(runtime.url).host;
      sandbox = new Sandbox(
        root,
        [
          [/http:\/\/localhost:3000/g, runtime.url],
          [/localhost:3000/g, host],
          [/\b8080\b/g, receiverPort],
        ],
        readerEnv(),
      );
    });
    afterAll(() => sandbox?.close());

    it('fences every block as a language the test knows', () => {
      expect(blocks.filter((b) => !KNOWN_LANGS.has(b.lang)).map((b) => `line ${b.line}: ${b.lang}`)).toEqual([]);
    });

    const program = blocks.filter((b) => b.use === 'ts');
    for (const block of blocks) {
      const at = `line ${block.line}`;
      const explain = (output: string) =>
        `${document} ${at}\n${sandbox.substitute(block.text)}\n--- output ---\n${output}\n--- runtime ---\n${runtime.output().slice(-4000)}`;
      if (block.use === 'sh') {
        it(
          `${at}: sh`,
          async () => {
            const result = await sandbox.runShell(block.text, BLOCK_TIMEOUT_MS);
            expect(failure(result), explain(result.output)).toBeUndefined();
          },
          BLOCK_TIMEOUT_MS + 10_000,
        );
      } else if (block.use === 'ts' && block === program[0]) {
        it(
          `${at}: ts program of ${program.length} block(s), lines ${program.map((b) => b.line).join(', ')}`,
          async () => {
            const result = await sandbox.runProgram(program, document.replace(/\W/g, '-'), BLOCK_TIMEOUT_MS);
            expect(failure(result), explain(result.output)).toBeUndefined();
          },
          BLOCK_TIMEOUT_MS + 10_000,
        );
        // A reader runs it again: on the same data it must make its own names, not fail on the first run's.
        it(
          `${at}: ts program, run a second time on the same data`,
          async () => {
            const result = await sandbox.runProgram(program, `${document.replace(/\W/g, '-')}-again`, BLOCK_TIMEOUT_MS);
            expect(failure(result), explain(result.output)).toBeUndefined();
          },
          BLOCK_TIMEOUT_MS + 10_000,
        );
      } else if (block.use === 'file') {
        it(`${at}: writes ${block.file}`, () => sandbox.writeFile(block));
      } else if (block.use === 'aws' || block.use === 'outside') {
        it(`${at}: not run (${block.use}): ${block.text.split('\n')[0]}`, () => checkNotRun(block));
      }
    }
  });
}

/**
 * The README's tour once more, in a fresh shell, on the data its first run left (the blocks above
 * ran it once): it must make its own names and pass again, not stop at a taken slug (nor loop on
 * an empty id). The tour is the README's `sh` blocks under "A tour".
 */
describe('README.md: the tour, run a second time on the same data', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const lines = readme.split('\n');
  const from = lines.findIndex((l) => l.startsWith('## A tour')) + 1;
  const to = lines.findIndex((l, i) => i >= from && l.startsWith('## '));
  const tour = parseBlocks(readme).filter((b) => b.use === 'sh' && b.line > from && b.line <= to);
  let sandbox: Sandbox;
  let receiverPort: number;
  beforeAll(async () => {
    receiverPort = await freePort();
    sandbox = new Sandbox(
      root,
      [
        [/http:\/\/localhost:3000/g, runtime.url],
        [/\b8080\b/g, String(receiverPort)],
      ],
      readerEnv(),
    );
  });
  afterAll(() => sandbox?.close());

  it('has the tour: publish, search, install, receiver, verify, contract, deliveries', () => {
    expect(tour.length).toBe(8);
  });

  it(
    'runs every step again, each as the first run did',
    async () => {
      for (const block of tour) {
        const result = await sandbox.runShell(block.text, BLOCK_TIMEOUT_MS);
        expect(failure(result), `line ${block.line}\n${result.output}`).toBeUndefined();
      }
      // `kill $RECEIVER` stopped the receiver itself (one process), so its port is free again.
      await expect.poll(() => portInUse(receiverPort), { timeout: 5_000 }).toBe(false);
    },
    tour.length * BLOCK_TIMEOUT_MS,
  );
});

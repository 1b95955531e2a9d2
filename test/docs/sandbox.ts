import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Block } from './blocks.ts';

/** The service's error format in an answer a block printed (docs/api.md): a documented call that failed. */
const ERROR_ANSWER = /"error"\s*:\s*\{\s*"code"/;
// What a fresh checkout has; not the repository's data, scratch or git folders.
const LEFT_OUT = new Set(['.git', '.data', '.tmp', '.scratch', '.bench-data', 'cdk.out']);

export interface BlockResult {
  code: number | null;
  output: string;
}

/**
 * Where one document's blocks run: a folder that looks like the repository's root (a link to each
 * of its entries), so `npm run …`, `npx tsx …` and `examples/…` work as in a checkout, while the
 * files the document writes (`file=` blocks, a program) land here and not in the repository. Shell
 * state (variables, functions) passes from one `sh` block to the next through a state file.
 */
export class Sandbox {
  readonly dir: string;
  private readonly state: string;
  private readonly groups: number[] = [];
  private readonly background: string[] = [];

  private readonly substitutions: Array<[RegExp, string]>;
  private readonly env: Record<string, string>;

  constructor(root: string, substitutions: Array<[RegExp, string]>, env: Record<string, string>) {
    this.substitutions = substitutions;
    this.env = env;
    this.dir = mkdtempSync(join(tmpdir(), 'doc-examples-'));
    for (const entry of readdirSync(root))
      if (!LEFT_OUT.has(entry)) symlinkSync(join(root, entry), join(this.dir, entry));
    this.state = join(this.dir, '.doc-state.sh');
  }

  /** The block as the test runs it: the docs' addresses and ports replaced by the started ones. */
  substitute(text: string): string {
    return this.substitutions.reduce((t, [pattern, value]) => t.replace(pattern, value), text);
  }

  writeFile(block: Block): void {
    writeFileSync(join(this.dir, block.file!), this.substitute(block.text));
  }

  /** One `sh` block in bash: `set -e -o pipefail`, the state of the blocks before it, and its own saved for the next. */
  runShell(text: string, timeoutMs: number): Promise<BlockResult> {
    const script = join(this.dir, '.doc-block.sh');
    writeFileSync(
      script,
      [
        'set -a', // every assignment is exported, so the state file carries it
        `if [ -f '${this.state}' ]; then source '${this.state}'; fi`,
        'set -eo pipefail',
        this.substitute(text),
        `{ export -p; declare -f; } > '${this.state}'`,
        '',
      ].join('\n'),
    );
    return this.spawnBash([script], timeoutMs);
  }

  /** The `ts` blocks of a document as one program, run with `npx tsx` in the shell state of the blocks before it. */
  runProgram(blocks: Block[], name: string, timeoutMs: number): Promise<BlockResult> {
    const program = join(this.dir, `${name}.mts`);
    // What a reader's project imports once the client package is installed is this repository's client.
    const text = blocks
      .map((b) => this.substitute(b.text))
      .join('\n')
      .replaceAll("'@template-marketplace/client'", "'./client/index.ts'");
    writeFileSync(program, text);
    return this.runShell(`npx tsx '${program}'`, timeoutMs);
  }

  private spawnBash(args: string[], timeoutMs: number): Promise<BlockResult> {
    return new Promise((resolve) => {
      // Its own process group: what the block leaves running (a receiver started with &) is stopped with it at the end.
      const child = spawn('bash', args, {
        cwd: this.dir,
        env: this.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      this.groups.push(child.pid!);
      let output = '';
      const take = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        this.background.push(chunk.toString('utf8'));
      };
      child.stdout!.on('data', take);
      child.stderr!.on('data', take);
      const timer = setTimeout(() => {
        output += `\n(stopped after ${timeoutMs / 1000} s)`;
        this.kill(child.pid!);
      }, timeoutMs);
      // 'exit', not 'close': a background process keeps the pipes open after the block is over.
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
  }

  /** Everything the blocks printed so far, background processes included. */
  transcript(): string {
    return this.background.join('');
  }

  private kill(group: number): void {
    try {
      process.kill(-group, 'SIGTERM');
    } catch {
      // already gone
    }
  }

  close(): void {
    for (const group of this.groups) this.kill(group);
    if (existsSync(this.dir)) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A block failed: a non-zero exit, or an answer in the service's error format. */
export function failure(result: BlockResult): string | undefined {
  if (result.code !== 0) return `exit ${result.code}`;
  if (ERROR_ANSWER.test(result.output)) return 'an error answer';
  return undefined;
}

/** PATH as a reader's shell has it: without this project's node_modules/.bin, which npm and npx add for the test run itself. */
export function readerPath(path: string | undefined): string {
  return (path ?? '')
    .split(delimiter)
    .filter((p) => !/node_modules[\\/]\.bin$/.test(p))
    .join(delimiter);
}

/**
 * The fenced code blocks of a Markdown document and what the doc-example test does with each
 * (CONTRIBUTING.md, "Docs that run"). The info string is `<language> [tag…] [file=<name>]`:
 *
 * - `sh` / `bash`: run with bash against the started runtime, in document order;
 * - `ts`: the file's `ts` blocks are one program (a later block sees an earlier one's names), run
 *   with tsx where its first block stands;
 * - `file=<name>` (any language): written to `<name>` in the folder the blocks run in, for a later
 *   block to start; not run itself;
 * - the tag `aws` (needs an AWS account) or `outside` (runs in your own project, or starts what the
 *   test itself starts: `npm ci`, `npm start`, `npm test`): not run; the test lists and checks it;
 * - any other language (`text`, `json`, `http`, none): an output sample, never run.
 */

export type BlockUse = 'sh' | 'ts' | 'file' | 'aws' | 'outside' | 'sample';

export interface Block {
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  tags: string[];
  /** `file=<name>`, if given. */
  file?: string;
  text: string;
  use: BlockUse;
}

export const NOT_RUN_TAGS = ['aws', 'outside'] as const;
const RUN_LANGS: Record<string, 'sh' | 'ts'> = { sh: 'sh', bash: 'sh', ts: 'ts' };
// Fences may be indented (a block inside a list item); the closing fence has the same marker.
const FENCE = /^(\s*)(```+|~~~+)\s*(.*)$/;

function useOf(lang: string, tags: string[], file: string | undefined): BlockUse {
  if (file) return 'file';
  const notRun = NOT_RUN_TAGS.find((t) => tags.includes(t));
  if (notRun) return notRun;
  return RUN_LANGS[lang] ?? 'sample';
}

export function parseBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const [, indent, marker, info] = open as unknown as [string, string, string, string];
    const words = info.trim().split(/\s+/).filter(Boolean);
    const lang = (words[0] ?? '').toLowerCase();
    const file = words.find((w) => w.startsWith('file='))?.slice('file='.length);
    const tags = words.slice(1).filter((w) => !w.startsWith('file='));
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = FENCE.exec(lines[j]!);
      if (close && close[2]!.startsWith(marker) && close[3]!.trim() === '') break;
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!);
    }
    if (j === lines.length) throw new Error(`the code block opened on line ${i + 1} is never closed`);
    blocks.push({
      line: i + 1,
      lang,
      tags,
      ...(file ? { file } : {}),
      text: `${body.join('\n')}\n`,
      use: useOf(lang, tags, file),
    });
    i = j;
  }
  return blocks;
}

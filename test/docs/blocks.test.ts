import { describe, expect, it } from 'vitest';
import { parseBlocks } from './blocks.ts';
import { failure } from './sandbox.ts';

describe('the doc-example block convention', () => {
  it('reads each fence as what the test does with it', () => {
    const doc = [
      '```sh',
      'curl -s x',
      '```',
      '```ts',
      'const a = 1;',
      '```',
      '```ts file=receiver.mts',
      'listen()',
      '```',
      '```sh aws',
      'cdk deploy',
      '```',
      '```sh outside',
      'npm start',
      '```',
      '```json',
      '{}',
      '```',
      '```',
      'diagram',
      '```',
    ].join('\n');
    expect(parseBlocks(doc).map((b) => [b.line, b.use, b.file])).toEqual([
      [1, 'sh', undefined],
      [4, 'ts', undefined],
      [7, 'file', 'receiver.mts'],
      [10, 'aws', undefined],
      [13, 'outside', undefined],
      [16, 'sample', undefined],
      [19, 'sample', undefined],
    ]);
  });

  it('takes an indented block (in a list item) without its indent, and a longer fence as one block', () => {
    const [indented, long] = parseBlocks(
      ['1. Step:', '', '   ```sh', '   echo one', '   ```', '````text', '```sh', 'not a block', '```', '````'].join(
        '\n',
      ),
    );
    expect(indented).toMatchObject({ use: 'sh', text: 'echo one\n' });
    expect(long).toMatchObject({ use: 'sample', text: '```sh\nnot a block\n```\n' });
  });

  it('refuses a block that is never closed', () => {
    expect(() => parseBlocks('```sh\necho\n')).toThrow(/line 1/);
  });

  it("fails a block on a non-zero exit or on an answer in the service's error format", () => {
    expect(failure({ code: 0, output: '{"id":"agt_1"}' })).toBeUndefined();
    expect(failure({ code: 1, output: '' })).toBe('exit 1');
    expect(failure({ code: 0, output: '{"error": {"code": "not_found", "message": "No such agent."}}' })).toBe(
      'an error answer',
    );
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVersionNotice, SUPPORTED_NODE_MAJOR } from '../../local/node-version.ts';

const root = join(import.meta.dirname, '../..');
const agent = (node: string) => `npm/11.6.2 node/${node} linux x64 workspaces/false`;

describe('the one supported Node', () => {
  it('is the one package.json names, for the project and for the receiver example', () => {
    for (const file of ['package.json', 'examples/webhook-receiver/package.json']) {
      const pkg = JSON.parse(readFileSync(join(root, file), 'utf8')) as { engines: { node: string } };
      expect(pkg.engines.node, file).toBe(`>=${SUPPORTED_NODE_MAJOR}`);
    }
  });

  it('says nothing on Node 24, in this process and in the shell that ran npm', () => {
    expect(nodeVersionNotice('v24.21.0', agent('v24.1.0'))).toBeUndefined();
    expect(nodeVersionNotice('v24.21.0', '')).toBeUndefined();
  });

  it('names the shell’s other Node in one sentence, and what to do', () => {
    const notice = nodeVersionNotice('v24.21.0', agent('v20.20.2'))!;
    expect(notice).toContain('Node v20.20.2');
    expect(notice).toContain('node server.ts');
    expect(notice).toContain('Node 24');
    expect(notice).not.toContain('\n');
  });

  it('names this process’s own Node when it is not 24 (npm start run without the devDependency)', () => {
    expect(nodeVersionNotice('v22.12.0', '')).toContain('Node v22.12.0');
  });
});

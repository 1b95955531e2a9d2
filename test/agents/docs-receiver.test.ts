import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildChallengeRequest } from '../../lib/webhooks/handshake.ts';
import { closedPort } from '../net/receiver.ts';
import { createTestUser, invoke } from '../support/lambda.ts';
import { useDevelopmentModeSwitch } from './env.ts';

// The receiver snippet of docs/webhooks.md, run as written: the documentation cannot drift from
// what the service actually sends.
const setDevelopmentMode = useDevelopmentModeSwitch();
const docs = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
const snippet = /## 5\.[\s\S]*?```ts file=receiver\.mts\n([\s\S]*?)```/.exec(docs)?.[1];

let child: ChildProcess | undefined;
let dir: string | undefined;
afterEach(() => {
  child?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function startSnippet(secret: string): Promise<string> {
  dir = mkdtempSync(join(tmpdir(), 'receiver-'));
  writeFileSync(join(dir, 'receiver.mts'), snippet!);
  const port = await closedPort();
  child = spawn(process.execPath, [join(dir, 'receiver.mts')], {
    env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(url, { method: 'POST', body: '{}' });
      return url;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('the documented receiver did not start');
}

describe('the minimal receiver in docs/webhooks.md', () => {
  it('passes the real handshake and refuses a bad signature with 401', async () => {
    expect(snippet).toBeDefined();
    setDevelopmentMode(true);
    const owner = await createTestUser();
    const { body: agent } = await invoke('createAgent', { caller: owner, body: { name: 'docs bot' } });
    const placeholder = await invoke('configureWebhook', {
      caller: owner,
      params: { id: agent.id },
      body: { webhook_url: 'https://hooks.example.com/', events: ['contract.funded'] },
    });
    const url = await startSnippet(placeholder.body.webhook_secret);
    await invoke('configureWebhook', {
      caller: owner,
      params: { id: agent.id },
      body: { webhook_url: url, events: ['contract.funded'] },
    });

    const verified = await invoke('verifyWebhook', { caller: owner, params: { id: agent.id } });
    expect(verified.body).toMatchObject({ webhook_status: 'ENABLED' });

    const forged = buildChallengeRequest({ agentId: agent.id, url, secret: 'whsec_wrong', token: 'x' });
    const res = await fetch(url, { method: 'POST', headers: forged.headers, body: forged.body });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: expect.any(String) });
  });
});

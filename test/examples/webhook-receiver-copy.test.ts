import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../lib/webhooks/signature.ts';
import { freePort } from '../../local/ports.ts';
import { readerPath } from '../docs/sandbox.ts';
import { createTestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';
import { listeningSockets } from '../support/proc-sockets.ts';

/**
 * examples/webhook-receiver as its README says to use it, copied out of the repository: its folder
 * alone, the client packed from this repository's client/ and installed offline (no registry), and
 * started with `node server.ts` on the Node the README names (Node 24, first on PATH as in a shell
 * that has it), then verified by the service through the local API and sent a signed event.
 */
const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'receiver-copy-'));
const api = useLocalApi();
/** A shell with Node 24: the one the devDependency installs, ahead of whatever `node` the machine has. */
const PATH = [join(root, 'node_modules/node/bin'), readerPath(process.env['PATH'])].join(delimiter);
let receiver: ChildProcess | undefined;
afterAll(() => {
  receiver?.kill();
  rmSync(work, { recursive: true, force: true });
});

const readme = readFileSync(join(root, 'examples/webhook-receiver/README.md'), 'utf8');

describe('examples/webhook-receiver copied elsewhere', () => {
  it('says in its README how it is installed and started, the way this test does it', () => {
    expect(readme).toContain('npm pack <repository>/client');
    expect(readme).toContain('npm install');
    expect(readme).toContain('WEBHOOK_SECRET=whsec_… PORT=8080 node server.ts');
  });

  it('installs offline from the packed client, starts with node server.ts, passes verification and takes a signed event', async () => {
    const folder = join(work, 'my-receiver');
    cpSync(join(root, 'examples/webhook-receiver'), folder, {
      recursive: true,
      filter: (source) => !/node_modules|\.tgz$/.test(source),
    });
    const env = { ...process.env, PATH, npm_config_update_notifier: 'false' };
    const npm = (args: string[]) =>
      run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd: folder, env });
    await npm(['pack', join(root, 'client')]);
    expect(readdirSync(folder).filter((f) => f.endsWith('.tgz'))).toEqual(['template-marketplace-client-0.1.0.tgz']);
    await npm(['install', '--offline']);
    // Nothing of the repository is reachable from the copy: the client is its own installed copy.
    expect(readdirSync(join(folder, 'node_modules/@template-marketplace/client/dist'))).toContain('index.js');

    process.env['DEVELOPMENT_MODE'] = 'true';
    const user = await createTestUser();
    const auth = { authorization: `Bearer ${user.apiKey}`, 'content-type': 'application/json' };
    const agent = (await (
      await fetch(`${api.url}/api/v1/agents`, { method: 'POST', headers: auth, body: '{"name":"copied receiver"}' })
    ).json()) as { id: string };
    const port = await freePort();
    const configured = (await (
      await fetch(`${api.url}/api/v1/agents/${agent.id}/webhook`, {
        method: 'PATCH',
        headers: auth,
        body: JSON.stringify({ webhook_url: `http://127.0.0.1:${port}/`, events: ['contract.funded'] }),
      })
    ).json()) as { webhook_secret: string };

    let printed = '';
    receiver = spawn('node', ['server.ts'], {
      cwd: folder,
      env: { ...env, WEBHOOK_SECRET: configured.webhook_secret, PORT: String(port) },
    });
    receiver.stdout!.on('data', (d: Buffer) => (printed += d.toString()));
    receiver.stderr!.on('data', (d: Buffer) => (printed += d.toString()));
    const deadline = Date.now() + 30_000;
    while (!printed.includes('listening')) {
      if (receiver.exitCode !== null || Date.now() > deadline)
        throw new Error(`the receiver did not start:\n${printed}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Loopback unless HOST says otherwise, and it prints where it listens.
    expect(printed).toContain(`webhook receiver listening on http://127.0.0.1:${port}`);
    expect(listeningSockets([receiver.pid!])).toEqual([{ address: '127.0.0.1', port }]);

    const verified = await fetch(`${api.url}/api/v1/agents/${agent.id}/webhook/verify`, {
      method: 'POST',
      headers: auth,
    });
    expect(verified.status, printed).toBe(200);
    expect(((await verified.json()) as { webhook_status: string }).webhook_status).toBe('ENABLED');

    const body = JSON.stringify({
      id: 'evt_copied1',
      type: 'contract.funded',
      created_at: new Date().toISOString(),
      agent_id: agent.id,
      data: { contract_id: 'ctr_copied1' },
    });
    const signed = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signatureHeaders(configured.webhook_secret, body, 'evt_copied1'),
      },
      body,
    });
    expect(signed.status).toBe(200);
    const forged = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signatureHeaders('whsec_b3RoZXJvdGhlcm90aGVyb3RoZXI=', body, 'evt_x'),
      },
      body,
    });
    expect(forged.status).toBe(401);
    expect(printed).toContain('"received":"contract.funded","event_id":"evt_copied1"');
  }, 180_000);
});

import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../lib/webhooks/secret.ts';
import { signatureHeaders } from '../../lib/webhooks/signature.ts';
import { createTestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';

/**
 * The client as an integrator gets it: `npm pack` in client/, the tarball installed into an empty
 * project, imported by plain `node` (no TypeScript loader) and type-checked by a consumer with
 * `lib: es2022, dom` and no special flags, then run against the local API. The tarball carries its
 * README and source maps whose sources are inside them.
 */
const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'client-pack-'));
const api = useLocalApi();
afterAll(() => rmSync(work, { recursive: true, force: true }));

const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });

describe('@template-marketplace/client as a package', () => {
  it('packs, installs into an empty project, type-checks and runs with plain node against the local API', async () => {
    await npm(['pack', '--pack-destination', work], join(root, 'client'));
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    expect(tarball).toMatch(/^template-marketplace-client-\d+\.\d+\.\d+\.tgz$/);

    // What the tarball ships: a README, and source maps that resolve (their sources inlined: the .ts files are not shipped).
    const listed = (await run('tar', ['-tzf', join(work, tarball!)])).stdout.split('\n').filter(Boolean);
    expect(listed).toContain('package/README.md');
    const maps = listed.filter((f) => f.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(10);
    await run('tar', ['-xzf', join(work, tarball!), '-C', work]);
    for (const map of maps) {
      const { sources, sourcesContent } = JSON.parse(readFileSync(join(work, map), 'utf8')) as {
        sources: string[];
        sourcesContent?: (string | null)[];
      };
      expect(sourcesContent?.length, map).toBe(sources.length);
      expect(
        sourcesContent!.every((c) => typeof c === 'string' && c.length > 0),
        map,
      ).toBe(true);
    }

    const project = join(work, 'project');
    await run('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await npm(['install', '--offline', join(work, tarball!)], project);
    // Zero runtime dependencies: the install brings the client and nothing else.
    expect(readdirSync(join(project, 'node_modules')).filter((f) => !f.startsWith('.'))).toEqual([
      '@template-marketplace',
    ]);

    writeFileSync(
      join(project, 'consumer.ts'),
      `import { MarketplaceClient, verifyWebhook, WebhookVerificationError, type Template, type AgentEvent } from '@template-marketplace/client';
const client = new MarketplaceClient({ apiKey: 'k', baseUrl: 'http://localhost:3000' });
const t: Promise<Template> = client.templates.get('x');
const e: Promise<unknown> = verifyWebhook({ secret: ['whsec_a', 'whsec_b'], headers: new Headers(), rawBody: '{}' });
export { t, e, WebhookVerificationError };
export type { AgentEvent };
`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2022', 'dom'],
          types: [],
          strict: true,
          noEmit: true,
        },
        files: ['consumer.ts'],
      }),
    );
    await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project]);

    const user = await createTestUser();
    const secret = newWebhookSecret();
    const body = JSON.stringify({
      id: 'evt_1',
      type: 'contract.funded',
      created_at: new Date().toISOString(),
      agent_id: 'agt_1',
      data: { contract_id: 'ctr_1' },
    });
    const headers = signatureHeaders(secret, body, 'evt_1');
    writeFileSync(
      join(project, 'script.js'),
      `import { MarketplaceClient, verifyWebhook, WebhookVerificationError } from '@template-marketplace/client';
const [baseUrl, apiKey, secret, headers, body] = process.argv.slice(2);
const client = new MarketplaceClient({ apiKey, baseUrl });
const categories = await client.categories.list();
const agent = await client.agents.create({ name: 'from the tarball' });
const event = await verifyWebhook({ secret, headers: JSON.parse(headers), rawBody: body });
const refused = await verifyWebhook({ secret: 'whsec_other', headers: JSON.parse(headers), rawBody: body }).catch((e) => e instanceof WebhookVerificationError && e.code);
console.log(JSON.stringify({ categories: categories.data.length, agent: agent.id, event: event.id, refused }));
`,
    );
    const { stdout } = await run(
      process.execPath,
      ['script.js', api.url, user.apiKey, secret, JSON.stringify(headers), body],
      { cwd: project },
    );
    expect(JSON.parse(stdout)).toEqual({
      categories: 7,
      agent: expect.stringMatching(/^agt_/),
      event: 'evt_1',
      refused: 'invalid_signature',
    });
  }, 180_000);
});

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedRuntime, startRuntime } from '../docs/runtime.ts';
import { fakeCloudFormation } from '../support/fake-cloudformation.ts';

/**
 * `npm run smoke` as CI and a platform team run it (docs/deployment.md, "Smoke test of a stage"):
 * a child process with its real flags, against `npm start` (on this file's table), whose output
 * names every step; then what it made is looked up to see that its cleanup happened. A refused key
 * and a deployed stage's URL without the push URL end it with exit 1 and a sentence saying why.
 * `--stage` reads the URLs from a CloudFormation stand-in whose outputs name the runtime.
 */
const root = join(import.meta.dirname, '../..');
const run = promisify(execFile);
const DEMO_KEY = 'mk_demo-key-of-the-local-runtime-only-never-valid-in-aws';
const STEPS_WITH_WEBHOOK = [
  'health',
  'publish',
  'search',
  'install',
  'agent',
  'verify',
  'contract',
  'delivery',
  'push',
  'resume',
  'cleanup',
];

let runtime: StartedRuntime;
beforeAll(async () => {
  runtime = await startRuntime(root, 180_000);
}, 200_000);
afterAll(async () => {
  await runtime?.stop();
});

async function smoke(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npm', ['run', '--silent', 'smoke', '--', ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      timeout: 150_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

// Credentials of no account: only the stand-in sees them.
const FAKE_AWS = { AWS_ACCESS_KEY_ID: 'AKIDSMOKE', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'eu-west-1' };
const passedSteps = (stdout: string) => [...stdout.matchAll(/^✓ (\w+)/gm)].map((m) => m[1]);
const api = (path: string) => fetch(`${runtime.url}${path}`, { headers: { authorization: `Bearer ${DEMO_KEY}` } });

describe('npm run smoke against npm start', () => {
  it('passes every step with a webhook on this machine, and leaves the agent deleted and the template private', async () => {
    const result = await smoke({}, '--url', runtime.url, '--key', DEMO_KEY);
    const explain = `${result.stdout}\n${result.stderr}\n--- runtime ---\n${runtime.output().slice(-3000)}`;
    expect(result.code, explain).toBe(0);
    expect(passedSteps(result.stdout), explain).toEqual(STEPS_WITH_WEBHOOK);
    expect(result.stdout).toMatch(/✓ verify .*challenge answered, webhook ENABLED/);
    expect(result.stdout).toMatch(/✓ delivery .*contract\.funded evt_\w+ received, signature verified/);
    expect(result.stdout).toMatch(/✓ resume .*contract\.released pushed \(and delivered\)/);
    expect(result.stdout).toMatch(/^smoke passed: 11 steps in \d+\.\d s$/m);

    const agentId = /agent (agt_\w+)/.exec(result.stdout)![1]!;
    const templateId = /template ([0-9a-f-]{36})/.exec(result.stdout)![1]!;
    expect((await api(`/api/v1/agents/${agentId}`)).status).toBe(404);
    const template = (await (await api(`/v1/marketplace/templates/${templateId}`)).json()) as { visibility: string };
    expect(template.visibility).toBe('private');
  }, 160_000);

  it('with --feed, reads the delivery from the agent feed instead of a webhook', async () => {
    const result = await smoke({}, '--url', runtime.url, '--key', DEMO_KEY, '--feed');
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(passedSteps(result.stdout)).toEqual(STEPS_WITH_WEBHOOK.filter((s) => s !== 'verify'));
    expect(result.stdout).toMatch(/✓ delivery .*contract\.funded evt_\w+ in the agent’s feed \(polled\)/);
  }, 160_000);

  it("with --stage, takes the API's and push channel's URLs from the stage's API stack outputs", async () => {
    // CloudFormation is a stand-in on 127.0.0.1 (test/support/fake-cloudformation.ts) whose outputs name npm start.
    const cloudFormation = await fakeCloudFormation({
      'TemplateMarketplace-dev-Api': {
        ApiUrl: `${runtime.url}/`,
        PushUrl: `${runtime.url.replace('http', 'ws')}/push`,
      },
    });
    try {
      const result = await smoke(
        { AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.url, ...FAKE_AWS },
        '--stage',
        'dev',
        '--key',
        DEMO_KEY,
      );
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(result.stdout).toContain(`Smoke run against ${runtime.url}/`);
      expect(passedSteps(result.stdout)).toEqual(STEPS_WITH_WEBHOOK);
      expect(cloudFormation.requests.map((r) => r.form['StackName'])).toEqual(['TemplateMarketplace-dev-Api']);
    } finally {
      await cloudFormation.close();
    }
  }, 160_000);

  it('stops at the first call a wrong key makes, exit 1, saying the key was refused', async () => {
    const result = await smoke({}, '--url', runtime.url, '--key', 'mk_not-a-key-of-this-stage');
    expect(result.code).toBe(1);
    expect(passedSteps(result.stdout)).toEqual(['health']);
    expect(result.stdout).toMatch(/^✗ publish: 401 unauthorized: /m);
    expect(result.stderr).toMatch(/^smoke failed: publish: 401 unauthorized: .*the key was refused/m);
  }, 60_000);

  it('refuses a deployed stage without its push URL before making anything', async () => {
    const result = await smoke({}, '--url', 'https://api.example.com', '--key', DEMO_KEY);
    expect(result.code).toBe(1);
    expect(result.stdout).not.toMatch(/✓/);
    expect(result.stderr).toContain('--push-url (or --stage) is required for a deployed stage');
  }, 60_000);
});

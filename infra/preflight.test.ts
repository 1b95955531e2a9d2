/**
 * `npm run preflight`: its decisions (infra/preflight.ts) directly, and the script end to end
 * against a stand-in for the AWS endpoints: a plain HTTP server on 127.0.0.1 that answers Lambda's
 * GetAccountSettings and SSM's GetParameter as AWS does (the script reaches it through the SDK's own
 * AWS_ENDPOINT_URL variable), and checks each request is SigV4-signed for its service and region.
 */
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountFacts,
  BOOTSTRAP_VERSION_PARAMETER,
  checkBootstrap,
  checkConcurrency,
  checkRegion,
  REQUIRED_BOOTSTRAP_VERSION,
} from './preflight.ts';
import { STAGES, stageConfig } from './stage-config.ts';
import { synthApp } from './test-synth.ts';

const facts = (limit: number, unreserved = limit, bootstrapVersion = 30): AccountFacts => ({
  region: 'eu-west-1',
  concurrency: { limit, unreserved },
  bootstrapVersion,
});

describe('preflight decisions', () => {
  it('refuses prod in a new account (quota 10) and names the quota to request; dev and staging fit it', () => {
    const [prod] = checkConcurrency(STAGES['prod']!, facts(10));
    expect(prod!.status).toBe('fail');
    expect(prod!.say).toContain('at least 410');
    expect(prod!.say).toContain('--quota-code L-B99A9384 --desired-value 410 --region eu-west-1');
    for (const stage of ['dev', 'staging']) expect(checkConcurrency(STAGES[stage]!, facts(10))[0]!.status).toBe('ok');
    expect(checkConcurrency(STAGES['prod']!, facts(410))[0]!.status).toBe('ok');
    expect(checkConcurrency(STAGES['prod']!, facts(409))[0]!.status).toBe('fail');
  });

  it('warns when the quota is enough but other functions hold so much that the reservations would not fit', () => {
    const [finding] = checkConcurrency(STAGES['prod']!, facts(1000, 300));
    expect(finding!.status).toBe('warn');
    expect(finding!.say).toContain('release 110');
    expect(checkConcurrency(STAGES['prod']!, facts(1000, 410))[0]!.status).toBe('ok');
  });

  it('asks for a bootstrap when there is none or it is too old', () => {
    const unbootstrapped = { ...facts(1000), bootstrapVersion: undefined };
    expect(checkBootstrap(unbootstrapped)[0]).toMatchObject({ status: 'fail' });
    expect(checkBootstrap(unbootstrapped)[0]!.say).toContain('npx cdk bootstrap aws://<account id>/eu-west-1');
    expect(checkBootstrap(facts(1000, 1000, 5))[0]!.status).toBe('fail');
    expect(checkBootstrap(facts(1000, 1000, REQUIRED_BOOTSTRAP_VERSION))[0]!.status).toBe('ok');
  });

  it('needs a region, and the custom domain certificate in it', () => {
    expect(checkRegion(STAGES['dev']!, undefined)[0]!.status).toBe('fail');
    const withDomain = (region: string) =>
      stageConfig('prod', (key) =>
        key === 'domainName'
          ? 'api.example.com'
          : key === 'certificateArn'
            ? `arn:aws:acm:${region}:123456789012:certificate/00000000-0000-0000-0000-000000000000`
            : undefined,
      );
    expect(checkRegion(withDomain('us-east-1'), 'eu-west-1')[0]!.status).toBe('fail');
    expect(checkRegion(withDomain('eu-west-1'), 'eu-west-1')[0]!.status).toBe('ok');
  });

  it('requires the bootstrap version the templates check for', () => {
    const synth = synthApp({ stage: 'dev' });
    const rulesOf = (template: unknown) => (template as { Rules?: Record<string, unknown> }).Rules ?? {};
    const checked = synth.usage.filter((u) => rulesOf(u.template)['CheckBootstrapVersion']);
    expect(checked.length).toBeGreaterThanOrEqual(4);
    for (const usage of checked) {
      const refused = JSON.stringify(rulesOf(usage.template)['CheckBootstrapVersion']).match(/\[("\d+",?)+\]/)![0];
      expect(Math.max(...(JSON.parse(refused) as string[]).map(Number)) + 1, usage.stack).toBe(
        REQUIRED_BOOTSTRAP_VERSION,
      );
    }
  }, 120_000);
});

interface Seen {
  method: string;
  path: string;
  target: string | undefined;
  authorization: string;
  body: string;
}

describe('npm run preflight against a stand-in for the AWS endpoints on 127.0.0.1', () => {
  let server: Server;
  let endpoint: string;
  const seen: Seen[] = [];
  let account = { limit: 10, unreserved: 10, bootstrap: undefined as string | undefined };

  beforeAll(async () => {
    server = createServer(async (req: IncomingMessage, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      const target = req.headers['x-amz-target'] as string | undefined;
      seen.push({ method: req.method!, path: req.url!, target, authorization: req.headers.authorization ?? '', body });
      if (req.method === 'GET' && req.url === '/2016-08-19/account-settings/') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            AccountLimit: {
              ConcurrentExecutions: account.limit,
              UnreservedConcurrentExecutions: account.unreserved,
              CodeSizeUnzipped: 262144000,
            },
            AccountUsage: { FunctionCount: 0, TotalCodeSize: 0 },
          }),
        );
      } else if (req.method === 'POST' && target === 'AmazonSSM.GetParameter') {
        res.writeHead(account.bootstrap ? 200 : 400, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(
          JSON.stringify(
            account.bootstrap
              ? { Parameter: { Name: BOOTSTRAP_VERSION_PARAMETER, Type: 'String', Value: account.bootstrap } }
              : { __type: 'ParameterNotFound', message: '' },
          ),
        );
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const preflight = (stage: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [fileURLToPath(new URL('../scripts/preflight.ts', import.meta.url)), '-c', `stage=${stage}`],
        {
          env: {
            PATH: process.env['PATH'],
            HOME: '/nonexistent',
            AWS_REGION: 'eu-west-1',
            AWS_ACCESS_KEY_ID: 'AKIDPREFLIGHTTEST',
            AWS_SECRET_ACCESS_KEY: 'not-a-secret',
            AWS_ENDPOINT_URL: endpoint,
          },
        },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('fails prod in a new, unbootstrapped account and says what to request and run, from signed reads only', async () => {
    account = { limit: 10, unreserved: 10, bootstrap: undefined };
    seen.length = 0;
    const { code, stdout, stderr } = await preflight('prod');
    expect(stderr).toBe('');
    expect(code).toBe(1);
    expect(stdout).toContain('fail concurrency: The prod stage reserves 310');
    expect(stdout).toContain('--desired-value 410');
    expect(stdout).toContain('fail bootstrap');
    expect(stdout).toContain('ok   region: Deploys to eu-west-1.');
    expect(seen.map((s) => `${s.method} ${s.path} ${s.target ?? ''}`.trim()).sort()).toEqual([
      'GET /2016-08-19/account-settings/',
      'POST / AmazonSSM.GetParameter',
    ]);
    expect(JSON.parse(seen.find((s) => s.target)!.body)).toEqual({ Name: BOOTSTRAP_VERSION_PARAMETER });
    const scopes = seen.map((s) =>
      /Credential=AKIDPREFLIGHTTEST\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/.exec(s.authorization)?.slice(1),
    );
    expect(scopes).toEqual(
      expect.arrayContaining([
        ['eu-west-1', 'lambda'],
        ['eu-west-1', 'ssm'],
      ]),
    );
  }, 60_000);

  it('passes dev in the same account once it is bootstrapped', async () => {
    account = { limit: 10, unreserved: 10, bootstrap: '30' };
    const { code, stdout } = await preflight('dev');
    expect(stdout).toContain('ok   concurrency: The dev stage reserves no concurrency');
    expect(stdout).toContain('ok   bootstrap: Bootstrapped (version 30).');
    expect(code).toBe(0);
  }, 60_000);
});

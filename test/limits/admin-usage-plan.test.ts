import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { findCallerByApiKey, hashApiKey } from '../../lib/accounts/api-keys.ts';
import { db, tableName } from '../../lib/store/client.ts';
import { type FakeCloudFormation, fakeCloudFormation } from '../support/fake-cloudformation.ts';

/**
 * `admin create-key` against a deployed stage: it registers the key with the usage plan before
 * storing it. The command runs as documented (TABLE_NAME without DYNAMODB_ENDPOINT = AWS), with
 * the SDK's standard endpoint variables pointing DynamoDB at this file's DynamoDB Local table and
 * API Gateway at a recording HTTP server on 127.0.0.1. No API Gateway emulator exists for this
 * machine, so that server stands in for API Gateway's REST API: it answers CreateApiKey,
 * CreateUsagePlanKey and DeleteApiKey with the documented shapes and records what it was sent.
 */
const root = join(import.meta.dirname, '../..');
const run = promisify(execFile);

interface Recorded {
  method: string;
  path: string;
  body: any;
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

async function fakeApiGateway(options: { usagePlanExists: boolean }) {
  const requests: Recorded[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push({ method: req.method!, path: req.url!, body: body ? JSON.parse(body) : undefined });
      const reply = (status: number, json: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(json));
      };
      if (req.method === 'POST' && req.url === '/apikeys')
        return reply(201, { id: 'k123', name: JSON.parse(body).name, enabled: true });
      if (req.method === 'POST' && req.url === '/usageplans/plan42/keys') {
        if (!options.usagePlanExists)
          return reply(
            404,
            { message: 'Invalid Usage Plan ID specified' },
            { 'x-amzn-errortype': 'NotFoundException' },
          );
        return reply(201, { id: 'k123', type: 'API_KEY' });
      }
      if (req.method === 'DELETE' && req.url === '/apikeys/k123') return void res.writeHead(202).end();
      reply(400, { message: 'unexpected' }, { 'x-amzn-errortype': 'BadRequestException' });
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

function adminInAws(apiGatewayUrl: string, env: Record<string, string> = {}, name = 'Dana', more: string[] = []) {
  const { DYNAMODB_ENDPOINT, ...rest } = process.env;
  return run(process.execPath, [join(root, 'scripts/admin.ts'), 'create-key', '--name', name, ...more], {
    cwd: root,
    env: {
      ...rest,
      LOG_LEVEL: 'silent',
      // The key id names this test file's database in DynamoDB Local (test/support/per-file-table.ts).
      AWS_ACCESS_KEY_ID: process.env['EMULATOR_ACCESS_KEY_ID']!,
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_DYNAMODB: DYNAMODB_ENDPOINT!,
      AWS_ENDPOINT_URL_API_GATEWAY: apiGatewayUrl,
      USAGE_PLAN_ID: 'plan42',
      ...env,
    },
  });
}

describe('admin create-key for a deployed stage', () => {
  it("creates the key's API Gateway API key (value = its usage identifier) in the usage plan, then stores the key", async () => {
    const gateway = await fakeApiGateway({ usagePlanExists: true });
    const { stdout } = await adminInAws(gateway.url);
    const issued = JSON.parse(stdout) as { api_key: string; user_id: string };

    expect(gateway.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /apikeys',
      'POST /usageplans/plan42/keys',
    ]);
    expect(gateway.requests[0]!.body).toMatchObject({
      name: `user-${issued.user_id}`,
      value: hashApiKey(issued.api_key),
      enabled: true,
    });
    expect(JSON.stringify(gateway.requests)).not.toContain(issued.api_key);
    expect(gateway.requests[1]!.body).toEqual({ keyId: 'k123', keyType: 'API_KEY' });
    expect(await findCallerByApiKey(issued.api_key)).toMatchObject({ userId: issued.user_id, name: 'Dana' });
  });

  it('stores nothing and removes the API Gateway key again when the usage plan refuses it; exit 1 with the reason', async () => {
    const gateway = await fakeApiGateway({ usagePlanExists: false });
    const failed = await adminInAws(gateway.url, {}, 'Refused').then(
      () => undefined,
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toBe('');
    // A test may look at the whole (per-file) table: no user and no key item was written.
    const { Items = [] } = await db().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#n = :n',
        ExpressionAttributeNames: { '#n': 'name' },
        ExpressionAttributeValues: { ':n': 'Refused' },
      }),
    );
    expect(Items).toEqual([]);
    expect(failed?.stderr).toContain('NotFoundException');
    expect(gateway.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /apikeys',
      'POST /usageplans/plan42/keys',
      'DELETE /apikeys/k123',
    ]);
  });

  it('refuses to make a key for a deployed stage without USAGE_PLAN_ID (it would be refused by API Gateway)', async () => {
    const gateway = await fakeApiGateway({ usagePlanExists: true });
    const failed = await adminInAws(gateway.url, { USAGE_PLAN_ID: '' }).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain('USAGE_PLAN_ID');
    expect(gateway.requests).toEqual([]);
  });
});

describe("admin create-key --stage: the settings from the stage's stack outputs", () => {
  // CloudFormation too is a stand-in on 127.0.0.1 (test/support/fake-cloudformation.ts), reached
  // through the SDK's standard AWS_ENDPOINT_URL_CLOUDFORMATION: the command gets AWS credentials,
  // a region and the stage's name, and neither TABLE_NAME nor USAGE_PLAN_ID.
  let cloudFormation: FakeCloudFormation | undefined;
  afterEach(async () => {
    await cloudFormation?.close();
    cloudFormation = undefined;
  });
  const stacksOf = (stage: string): Record<string, Record<string, string>> => ({
    [`TemplateMarketplace-${stage}`]: {
      TableName: tableName(),
      DeliveryQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/delivery',
      DeliveryDlqUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/delivery-dlq',
    },
    [`TemplateMarketplace-${stage}-Api`]: {
      UsagePlanId: 'plan42',
      PushConnectionsEndpoint: `https://push.execute-api.us-east-1.amazonaws.com/${stage}`,
    },
  });

  it('reads TableName and UsagePlanId by DescribeStacks, then issues the key as with the variables', async () => {
    const gateway = await fakeApiGateway({ usagePlanExists: true });
    cloudFormation = await fakeCloudFormation(stacksOf('dev'));
    const env = { TABLE_NAME: '', USAGE_PLAN_ID: '', AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.url };
    const { stdout } = await adminInAws(gateway.url, env, 'Platform team', ['--operator', '--stage', 'dev']);
    const issued = JSON.parse(stdout) as { api_key: string; user_id: string };

    expect(cloudFormation.requests.map((r) => `${r.form['Action']} ${r.form['StackName']}`).sort()).toEqual([
      'DescribeStacks TemplateMarketplace-dev',
      'DescribeStacks TemplateMarketplace-dev-Api',
    ]);
    expect(cloudFormation.requests[0]!.authorization).toContain('/us-east-1/cloudformation/aws4_request');
    expect(gateway.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /apikeys',
      'POST /usageplans/plan42/keys',
    ]);
    expect(await findCallerByApiKey(issued.api_key)).toMatchObject({
      userId: issued.user_id,
      name: 'Platform team',
      operator: true,
    });
  });

  it("exits 1 with CloudFormation's reason for a stage that is not deployed, having made nothing", async () => {
    const gateway = await fakeApiGateway({ usagePlanExists: true });
    cloudFormation = await fakeCloudFormation(stacksOf('dev'));
    const env = { TABLE_NAME: '', USAGE_PLAN_ID: '', AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.url };
    const failed = await adminInAws(gateway.url, env, 'Nobody', ['--stage', 'staging']).then(
      () => undefined,
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toBe('');
    expect(failed?.stderr).toContain(
      '--stage staging: CloudFormation DescribeStacks answered 400 ValidationError: Stack with id TemplateMarketplace-staging',
    );
    expect(gateway.requests).toEqual([]);
  });
});

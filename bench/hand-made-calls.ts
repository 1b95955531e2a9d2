/**
 * `npm run bench -- hand-made-calls`: each AWS call this service makes without an SDK client
 * (lib/aws/signed-request.ts's transport), against the same call made with the SDK's own client:
 * the bytes each adds to a function bundle (the floor, the DynamoDB client every function has, plus
 * the call, bundled as synth bundles: infra/bundle.ts), and the CPU per call (CALLS calls in turn to a
 * bare server on 127.0.0.1 answering a recorded success; the server's share is in both figures, the
 * client is made once). The answer to "which hand-made calls are worth keeping": the bytes decide
 * where a budget is tight (docs/cost.md, "Bundle budget"), the CPU where a call is frequent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiGatewayManagementApiClient, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { bundleFloor, bundleOverFloor } from '../infra/bundle.ts';
import { generateDataKey } from '../lib/aws/kms.ts';
import { sessionFor } from '../lib/destinations/session.ts';
import { sendLater } from '../lib/events/delivery/queue.ts';
import { postFrame } from '../lib/events/push/channel.ts';
import { handOffToPush } from '../lib/events/push-hand-off.ts';

const CALLS = Number(process.env['HAND_MADE_BENCH_CALLS'] ?? 500);
const REGION = 'eu-west-1';
const KEY_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const ROLE_ARN = 'arn:aws:iam::111122223333:role/destination-sender';
const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/111122223333/deliveries';
const keys = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' };

const STS_ANSWER = `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><AssumedRoleUser><AssumedRoleId>AROA:x</AssumedRoleId><Arn>arn:aws:sts::111122223333:assumed-role/destination-sender/x</Arn></AssumedRoleUser><Credentials><AccessKeyId>ASIAEXAMPLE</AccessKeyId><SecretAccessKey>secret</SecretAccessKey><SessionToken>token</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials></AssumeRoleResult></AssumeRoleResponse>`;
const STREAM_RECORD = {
  eventName: 'INSERT',
  dynamodb: {
    SequenceNumber: '1',
    NewImage: { entity: { S: 'event' }, id: { S: 'evt_01' }, agent_id: { S: 'agt_01' } },
  },
};

/** A bare server answering each request by its path and target with the recorded success. */
async function bareServer(): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      if (req.url?.includes('/invocations')) return res.writeHead(202).end();
      if (req.url?.includes('@connections')) return res.writeHead(200).end();
      if (target.startsWith('TrentService'))
        return res
          .writeHead(200, { 'content-type': 'application/x-amz-json-1.1' })
          .end(
            JSON.stringify({ CiphertextBlob: 'AQID', KeyId: KEY_ARN, Plaintext: Buffer.alloc(32).toString('base64') }),
          );
      if (target.startsWith('AmazonSQS'))
        return res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}');
      res.writeHead(200, { 'content-type': 'text/xml' }).end(STS_ANSWER);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

interface Call {
  name: string;
  /** What a function bundles for it, ours and the SDK's (on top of the floor). */
  oursSource: string;
  sdkSource: string;
  ours(url: string, i: number): Promise<unknown>;
  sdk(url: string): (i: number) => Promise<unknown>;
}

const sdkOptions = (url: string) => ({ endpoint: url, region: REGION, credentials: keys, maxAttempts: 1 });

const CALLS_MEASURED: Call[] = [
  {
    name: 'KMS GenerateDataKey',
    oursSource: `import { generateDataKey } from './lib/aws/kms.ts'; export const call = () => generateDataKey('k', {});`,
    sdkSource: `import { GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms'; const c = new KMSClient({}); export const call = () => c.send(new GenerateDataKeyCommand({ KeyId: 'k', KeySpec: 'AES_256' }));`,
    ours: (url) => generateDataKey(KEY_ARN, { agent_id: 'agt_01' }, { endpoint: url }),
    sdk: (url) => {
      const client = new KMSClient(sdkOptions(url));
      return () =>
        client.send(
          new GenerateDataKeyCommand({ KeyId: KEY_ARN, KeySpec: 'AES_256', EncryptionContext: { agent_id: 'agt_01' } }),
        );
    },
  },
  {
    name: 'STS AssumeRole (a session tag)',
    oursSource: `import { sessionFor } from './lib/destinations/session.ts'; export const call = () => sessionFor('a');`,
    sdkSource: `import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts'; const c = new STSClient({}); export const call = () => c.send(new AssumeRoleCommand({ RoleArn: 'r', RoleSessionName: 's', Tags: [{ Key: 'k', Value: 'v' }] }));`,
    // Another account each time: sessionFor keeps a session per account.
    ours: (_url, i) => sessionFor(`bench-${i}-${Math.random()}`),
    sdk: (url) => {
      const client = new STSClient(sdkOptions(url));
      return (i) =>
        client.send(
          new AssumeRoleCommand({
            RoleArn: ROLE_ARN,
            RoleSessionName: `dest-bench-${i}`,
            DurationSeconds: 900,
            Tags: [{ Key: 'marketplace-account', Value: `bench-${i}` }],
          }),
        );
    },
  },
  {
    name: 'SQS SendMessageBatch (a delayed retry)',
    oursSource: `import { sendLater } from './lib/events/delivery/queue.ts'; export const call = () => sendLater([{ message: { agent_id: 'a' }, seconds: 60 }], 0, 'q');`,
    sdkSource: `import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs'; const c = new SQSClient({}); export const call = () => c.send(new SendMessageBatchCommand({ QueueUrl: 'q', Entries: [{ Id: '0', MessageBody: '{}', DelaySeconds: 60, MessageGroupId: 'a' }] }));`,
    ours: () => sendLater([{ message: { agent_id: 'agt_bench' }, seconds: 60 }], 0, QUEUE_URL),
    sdk: (url) => {
      const client = new SQSClient(sdkOptions(url));
      return () =>
        client.send(
          new SendMessageBatchCommand({
            QueueUrl: QUEUE_URL,
            Entries: [
              { Id: '0', MessageBody: '{"agent_id":"agt_bench"}', DelaySeconds: 60, MessageGroupId: 'agt_bench' },
            ],
          }),
        );
    },
  },
  {
    name: "Lambda Invoke (Event: the relay's hand-off)",
    oursSource: `import { handOffToPush } from './lib/events/push-hand-off.ts'; export const call = () => handOffToPush([]);`,
    sdkSource: `import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda'; const c = new LambdaClient({}); export const call = () => c.send(new InvokeCommand({ FunctionName: 'f', InvocationType: 'Event', Payload: new Uint8Array() }));`,
    ours: () => handOffToPush([STREAM_RECORD]),
    sdk: (url) => {
      const client = new LambdaClient(sdkOptions(url));
      const payload = Buffer.from(
        JSON.stringify({ agents: [{ agent_id: 'agt_01', images: [STREAM_RECORD.dynamodb.NewImage] }] }),
      );
      return () => client.send(new InvokeCommand({ FunctionName: 'push', InvocationType: 'Event', Payload: payload }));
    },
  },
  {
    name: '@connections PostToConnection',
    oursSource: `import { postFrame } from './lib/events/push/channel.ts'; export const call = () => postFrame('c', '{}');`,
    sdkSource: `import { ApiGatewayManagementApiClient, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi'; const c = new ApiGatewayManagementApiClient({}); export const call = () => c.send(new PostToConnectionCommand({ ConnectionId: 'c', Data: '{}' }));`,
    ours: (_url, i) => postFrame(`conn-${i}`, '{"id":"evt_01"}'),
    sdk: (url) => {
      const client = new ApiGatewayManagementApiClient(sdkOptions(url));
      return (i) => client.send(new PostToConnectionCommand({ ConnectionId: `conn-${i}`, Data: '{"id":"evt_01"}' }));
    },
  },
];

/** CPU ms per call (user + system of this process, server included), after 20 untimed calls. */
async function cpuPerCall(call: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await call(i);
  const before = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await call(i);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / CALLS;
}

export async function run(): Promise<string> {
  const server = await bareServer();
  const saved = { ...process.env };
  // As in Lambda: the role's credentials and region in the environment; every endpoint the bare server.
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: keys.accessKeyId,
    AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
    AWS_SESSION_TOKEN: keys.sessionToken,
    AWS_REGION: REGION,
    SQS_ENDPOINT: server.url,
    STS_ENDPOINT: server.url,
    LAMBDA_ENDPOINT: server.url,
    PUSH_FUNCTION_NAME: 'push',
    PUSH_CONNECTIONS_ENDPOINT: server.url,
    DESTINATION_SENDER_ROLE_ARN: ROLE_ARN,
  });
  delete process.env['DYNAMODB_ENDPOINT'];
  const dir = mkdtempSync(join(tmpdir(), 'hand-made-bench-'));
  try {
    const floor = (await bundleFloor(join(dir, 'floor'), 'none')).bytes;
    const rows: string[] = [];
    for (const [n, call] of CALLS_MEASURED.entries()) {
      const ours = (await bundleOverFloor(call.oursSource, join(dir, `ours-${n}`))).bytes - floor;
      const sdk = (await bundleOverFloor(call.sdkSource, join(dir, `sdk-${n}`))).bytes - floor;
      const oursCpu = await cpuPerCall((i) => call.ours(server.url, i));
      const sdkCpu = await cpuPerCall(call.sdk(server.url));
      rows.push(
        `| ${call.name} | ${(ours / 1024).toFixed(1)} | ${(sdk / 1024).toFixed(1)} | ${((sdk - ours) / 1024).toFixed(1)} | ${oursCpu.toFixed(2)} | ${sdkCpu.toFixed(2)} | ×${(sdkCpu / oursCpu).toFixed(2)} |`,
      );
    }
    return [
      '### Hand-made AWS calls against the SDK clients',
      '',
      `Each call's bytes over the floor (the DynamoDB client alone, ${(floor / 1024).toFixed(1)} KB minified), bundled as synth bundles a function, and its CPU per call: ${CALLS} calls in turn to a bare server on 127.0.0.1 answering a recorded success (the server's share is in both; the SDK client made once, \`maxAttempts: 1\`), this machine.`,
      '',
      '| Call | Ours: KB over the floor | SDK client: KB over the floor | Bytes saved, KB | Ours: CPU ms a call | SDK client: CPU ms a call | SDK against ours |',
      '|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n');
  } finally {
    process.env = saved;
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

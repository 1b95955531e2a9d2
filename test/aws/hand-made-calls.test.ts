import { createHash } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { afterEach, describe, expect, it } from 'vitest';
import { decrypt, generateDataKey, KmsError } from '../../lib/aws/kms.ts';
import { errorCodeOf } from '../../lib/aws/signed-request.ts';
import { DESTINATIONS } from '../../lib/core/settings.ts';
import { sessionFor } from '../../lib/destinations/session.ts';
import { sendLater } from '../../lib/events/delivery/queue.ts';
import { handOffOf, handOffToPush } from '../../lib/events/push-hand-off.ts';
import {
  type Reply,
  type ScriptedEndpoint,
  type SeenRequest,
  scriptedEndpoint,
  signingScopeOf,
} from './support/scripted-endpoint.ts';

/**
 * Each AWS call made without an SDK client, sent beside the same call made with the SDK's own client
 * (devDependencies: the reference, never bundled) to one server on 127.0.0.1: the method, the path,
 * the headers that select the operation and the body are the SDK's, byte for byte, and the signature
 * is scoped to the same service and region. Then both read the same recorded answers, in the formats
 * AWS documents for each API (a success and an error), and agree on what they say.
 * (@connections has its own comparison in test/events/push-channel.test.ts.)
 */
const REGION = 'eu-west-1';
const keys = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session-token' };
const credentials = async () => keys;

let endpoint: ScriptedEndpoint | undefined;
const saved = { ...process.env };
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  process.env = { ...saved };
});

/** One recorded answer for every request. */
async function answeringAlways(reply: Reply): Promise<ScriptedEndpoint> {
  endpoint = await scriptedEndpoint(() => reply);
  return endpoint;
}

/** As in Lambda: no emulator, the role's credentials in the environment. */
function asInLambda(extra: Record<string, string> = {}): void {
  delete process.env['DYNAMODB_ENDPOINT'];
  delete process.env['SQS_ENDPOINT'];
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: keys.accessKeyId,
    AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
    AWS_SESSION_TOKEN: keys.sessionToken,
    AWS_REGION: REGION,
    ...extra,
  });
}

function expectSameRequest(reference: SeenRequest, ours: SeenRequest, headers: string[]): void {
  expect(ours.method).toBe(reference.method);
  expect(ours.path).toBe(reference.path);
  for (const name of headers) expect([name, ours.headers[name]]).toEqual([name, reference.headers[name]]);
  expect(ours.body).toBe(reference.body);
  const serviceAndRegion = (r: SeenRequest) => signingScopeOf(r)?.split('/').slice(1).join('/');
  expect(serviceAndRegion(ours)).toBe(serviceAndRegion(reference));
}

const sdkOptions = (url: string) => ({ endpoint: url, region: REGION, credentials: keys, maxAttempts: 1 });
const JSON_HEADERS = ['content-type', 'x-amz-target'];

describe('KMS (JSON protocol 1.1)', () => {
  const KEY_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  const context = { agent_id: 'agt_01', purpose: 'webhook-signing' };
  const plaintext = Buffer.alloc(32, 7);
  const blob = Buffer.from('AQIDAHhBlobFromKms');

  it('GenerateDataKey: the SDK request, byte for byte, and the same reading of its answer', async () => {
    const kms = await answeringAlways({
      status: 200,
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': 'a1b2' },
      body: JSON.stringify({
        CiphertextBlob: blob.toString('base64'),
        KeyId: KEY_ARN,
        KeyMaterialId: 'cc9b7e0a',
        Plaintext: plaintext.toString('base64'),
      }),
    });
    const sdk = new KMSClient(sdkOptions(kms.url));
    const reference = await sdk.send(
      new GenerateDataKeyCommand({ KeyId: KEY_ARN, KeySpec: 'AES_256', EncryptionContext: context }),
    );
    sdk.destroy();
    asInLambda();
    const ours = await generateDataKey(KEY_ARN, context, { endpoint: kms.url, credentials });
    expectSameRequest(kms.seen[0]!, kms.seen[1]!, JSON_HEADERS);
    expect(ours.plaintext).toEqual(Buffer.from(reference.Plaintext!));
    expect(ours.ciphertext).toEqual(Buffer.from(reference.CiphertextBlob!));
  });

  it('Decrypt: the SDK request, byte for byte, and the same error from an error answer', async () => {
    const kms = await answeringAlways({
      status: 400,
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': 'a1b2' },
      body: JSON.stringify({
        __type: 'AccessDeniedException',
        message: `User: arn:aws:sts::111122223333:assumed-role/deliver/fn is not authorized to perform: kms:Decrypt on resource: ${KEY_ARN}`,
      }),
    });
    const sdk = new KMSClient(sdkOptions(kms.url));
    const reference = await sdk
      .send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context }))
      .catch((err: Error) => err);
    sdk.destroy();
    asInLambda();
    const ours = await decrypt(blob, context, { endpoint: kms.url, credentials }).catch((err: Error) => err);
    expectSameRequest(kms.seen[0]!, kms.seen[1]!, JSON_HEADERS);
    expect(ours).toBeInstanceOf(KmsError);
    expect((ours as InstanceType<typeof KmsError>).type).toBe((reference as Error).name);
    expect((ours as Error).message).toContain((reference as Error).message);
  });
});

describe('SQS (JSON protocol 1.0): SendMessageBatch with delays and message groups', () => {
  const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/111122223333/deliveries';
  const MESSAGES = [
    { agent_id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC', delivery_id: 'dlv_0000000001FHNDNP00AKF8NB3J' },
    { agent_id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BD', delivery_id: 'dlv_0000000001FHNDNP00AKF8NB3K' },
  ];
  const sdkRequest = () =>
    new SendMessageBatchCommand({
      QueueUrl: QUEUE_URL,
      Entries: MESSAGES.map((m, i) => ({
        Id: String(i),
        MessageBody: JSON.stringify(m),
        DelaySeconds: 60,
        MessageGroupId: m.agent_id,
      })),
    });
  const md5 = (m: unknown) => createHash('md5').update(JSON.stringify(m)).digest('hex');

  it('the SDK request, byte for byte; an answer with a failed entry read alike', async () => {
    const sqs = await answeringAlways({
      status: 200,
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'c3d4' },
      body: JSON.stringify({
        Successful: [
          { Id: '0', MessageId: '5fea7756-0ea4-451a-a703-a558b933e274', MD5OfMessageBody: md5(MESSAGES[0]) },
        ],
        Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError', Message: 'try again' }],
      }),
    });
    const sdk = new SQSClient(sdkOptions(sqs.url));
    const reference = await sdk.send(sdkRequest());
    sdk.destroy();
    asInLambda({ SQS_ENDPOINT: sqs.url });
    const unsent = await sendLater(
      MESSAGES.map((message) => ({ message, seconds: 60 })),
      Date.now(),
      QUEUE_URL,
    );
    expectSameRequest(sqs.seen[0]!, sqs.seen[1]!, JSON_HEADERS);
    expect([...unsent].map(String)).toEqual((reference.Failed ?? []).map((f) => f.Id));
    await sqs.close();
  });
});

describe('STS (query protocol): AssumeRole with a session tag', () => {
  const ROLE_ARN = 'arn:aws:iam::111122223333:role/destination-sender';
  const ACCOUNT = '5f0c6a52-9a8e-4c7e-8f6a-0f4ed2b0c9a1';

  it('the SDK request, byte for byte, and the same credentials from its XML answer', async () => {
    const expiration = '2026-12-03T22:00:00Z';
    const sts = await answeringAlways({
      status: 200,
      headers: { 'content-type': 'text/xml', 'x-amzn-requestid': 'e5f6' },
      body: `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
    <AssumedRoleUser>
      <AssumedRoleId>AROA3XFRBF535PLBIFPI4:dest-${ACCOUNT}</AssumedRoleId>
      <Arn>arn:aws:sts::111122223333:assumed-role/destination-sender/dest-${ACCOUNT}</Arn>
    </AssumedRoleUser>
    <Credentials>
      <AccessKeyId>ASIAIOSFODNN7EXAMPLE</AccessKeyId>
      <SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY</SecretAccessKey>
      <SessionToken>IQoJb3JpZ2luX2VjEPT//////////wEaCXVzLWVhc3QtMSJHMEUCIQ+EXAMPLE=</SessionToken>
      <Expiration>${expiration}</Expiration>
    </Credentials>
    <PackedPolicySize>6</PackedPolicySize>
  </AssumeRoleResult>
  <ResponseMetadata>
    <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>
  </ResponseMetadata>
</AssumeRoleResponse>`,
    });
    const sdk = new STSClient(sdkOptions(sts.url));
    const reference = await sdk.send(
      new AssumeRoleCommand({
        RoleArn: ROLE_ARN,
        RoleSessionName: `dest-${ACCOUNT}`,
        DurationSeconds: DESTINATIONS.sessionSeconds,
        Tags: [{ Key: DESTINATIONS.tenantTagKey, Value: ACCOUNT }],
      }),
    );
    sdk.destroy();
    asInLambda({ STS_ENDPOINT: sts.url, DESTINATION_SENDER_ROLE_ARN: ROLE_ARN });
    const ours = await sessionFor(ACCOUNT);
    expectSameRequest(sts.seen[0]!, sts.seen[1]!, ['content-type']);
    expect(ours).toEqual({
      accessKeyId: reference.Credentials!.AccessKeyId,
      secretAccessKey: reference.Credentials!.SecretAccessKey,
      sessionToken: reference.Credentials!.SessionToken,
      expiration: reference.Credentials!.Expiration!.getTime(),
    });
  });

  it('an error answer: the same error code', async () => {
    const sts = await answeringAlways({
      status: 403,
      headers: { 'content-type': 'text/xml' },
      body: `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <Error>
    <Type>Sender</Type>
    <Code>AccessDenied</Code>
    <Message>User: arn:aws:sts::111122223333:assumed-role/deliver/fn is not authorized to perform: sts:TagSession on resource: ${ROLE_ARN}</Message>
  </Error>
  <RequestId>9a2b</RequestId>
</ErrorResponse>`,
    });
    const sdk = new STSClient(sdkOptions(sts.url));
    const reference = await sdk
      .send(new AssumeRoleCommand({ RoleArn: ROLE_ARN, RoleSessionName: 'dest-x' }))
      .catch((err: Error) => err);
    sdk.destroy();
    // Another account than the first test's: its session is not kept yet.
    asInLambda({ STS_ENDPOINT: sts.url, DESTINATION_SENDER_ROLE_ARN: ROLE_ARN });
    const ours = await sessionFor('0b6f9f0e-2d64-4bd4-9c55-4f8f1b1d3e2a').catch((err: Error) => err);
    expect((reference as Error).name).toBe('AccessDenied');
    expect((ours as Error).message).toMatch(/STS AssumeRole answered 403: AccessDenied/);
  });
});

describe("Lambda (REST-JSON): the relay's asynchronous Invoke of the push worker", () => {
  const FUNCTION = 'template-marketplace-prod-push';
  // A stream INSERT of a feed slot, as Lambda hands it to the relay.
  const record = {
    eventName: 'INSERT',
    dynamodb: {
      SequenceNumber: '000000000000000000042',
      NewImage: {
        PK: { S: 'AGENT#agt_01' },
        SK: { S: 'EVT#evt_01' },
        entity: { S: 'event' },
        id: { S: 'evt_01' },
        agent_id: { S: 'agt_01' },
        type: { S: 'contract.funded' },
      },
    },
  };

  it('the SDK request, byte for byte, and its 202 read as taken', async () => {
    const lambda = await answeringAlways({ status: 202, headers: { 'x-amzn-requestid': 'a1b2' }, body: '' });
    const sdk = new LambdaClient(sdkOptions(lambda.url));
    const reference = await sdk.send(
      new InvokeCommand({
        FunctionName: FUNCTION,
        InvocationType: 'Event',
        Payload: Buffer.from(JSON.stringify(handOffOf([record])!.handOff)),
      }),
    );
    sdk.destroy();
    asInLambda({ LAMBDA_ENDPOINT: lambda.url, PUSH_FUNCTION_NAME: FUNCTION });
    expect(await handOffToPush([record])).toEqual([]);
    expect(reference.StatusCode).toBe(202);
    expectSameRequest(lambda.seen[0]!, lambda.seen[1]!, ['content-type', 'x-amz-invocation-type']);
  });

  it('an error answer: the same error code, and the batch reported from its earliest slot', async () => {
    const notFound = {
      status: 404,
      headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' },
      body: JSON.stringify({
        Type: 'User',
        message: `Function not found: arn:aws:lambda:eu-west-1:111122223333:function:${FUNCTION}`,
      }),
    };
    const lambda = await answeringAlways(notFound);
    const sdk = new LambdaClient(sdkOptions(lambda.url));
    const reference = await sdk
      .send(new InvokeCommand({ FunctionName: FUNCTION, InvocationType: 'Event', Payload: Buffer.from('{}') }))
      .catch((err: Error) => err);
    sdk.destroy();
    asInLambda({ LAMBDA_ENDPOINT: lambda.url, PUSH_FUNCTION_NAME: FUNCTION });
    expect(await handOffToPush([record])).toEqual([record.dynamodb.SequenceNumber]);
    expect((reference as Error).name).toBe('ResourceNotFoundException');
    expect(errorCodeOf(notFound)).toBe((reference as Error).name);
    // A client error is final: one attempt each (the SDK's, then ours).
    expect(lambda.seen).toHaveLength(2);
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOverride } from '../../lib/aws-endpoint.ts';

/**
 * A real HTTP server on 127.0.0.1 that speaks DynamoDB's JSON protocol the way DynamoDB Local does
 * under lock contention: the first attempts of each request get a 500, later ones succeed. It
 * counts attempts per request by the SDK's invocation id.
 */
let server: Server;
let endpoint: string;
let failFirst = 0;
let answer: 'lock-wait' | 'validation' = 'lock-wait';
const attempts = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['amz-sdk-invocation-id']);
      const n = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, n);
      res.setHeader('content-type', 'application/x-amz-json-1.0');
      if (answer === 'validation') {
        res.statusCode = 400;
        res.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ValidationException', message: 'bad key' }));
      } else if (n <= failFirst) {
        res.statusCode = 500;
        res.end(
          JSON.stringify({
            __type: 'com.amazonaws.dynamodb.v20120810#InternalFailure',
            message:
              'The request processing has failed because of an unknown error, exception or failure. This request will succeed in actual DynamoDB API.',
          }),
        );
      } else {
        res.end('{}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const getItem = (client: DynamoDBClient) =>
  client.send(new GetItemCommand({ TableName: 't', Key: { PK: { S: 'a' } } })).then(
    (out) => ({ ok: true as const, attempts: out.$metadata.attempts }),
    (err: { name: string; $metadata?: { attempts?: number } }) => ({
      ok: false as const,
      name: err.name,
      attempts: err.$metadata?.attempts,
    }),
  );

describe('SDK retries against the local emulators', () => {
  it('serves a burst of 50 requests that each meet three lock-wait 500s; the SDK default quota does not', async () => {
    answer = 'lock-wait';
    failFirst = 3;
    const emulatorClient = new DynamoDBClient(endpointOverride(endpoint));
    const ours = await Promise.all(Array.from({ length: 50 }, () => getItem(emulatorClient)));
    expect(ours.filter((r) => !r.ok)).toEqual([]);
    expect(ours.every((r) => r.attempts === 4)).toBe(true);

    // The same burst on one client with the SDK's standard strategy and the same attempts: its
    // shared quota runs out after a few dozen retries, which is what answered 500 to installs.
    const { retryStrategy: _ours, ...sameWithoutOurs } = endpointOverride(endpoint);
    const sdkDefault = new DynamoDBClient(sameWithoutOurs);
    const theirs = await Promise.all(Array.from({ length: 50 }, () => getItem(sdkDefault)));
    expect(theirs.filter((r) => !r.ok).length).toBeGreaterThan(0);
    emulatorClient.destroy();
    sdkDefault.destroy();
  });

  it('stops after the attempts asked for, and gives the emulator’s error', async () => {
    answer = 'lock-wait';
    failFirst = 100;
    const client = new DynamoDBClient(endpointOverride(endpoint, 3));
    expect(await getItem(client)).toEqual({ ok: false, name: 'InternalFailure', attempts: 3 });
    client.destroy();
  });

  it('does not retry a client error', async () => {
    answer = 'validation';
    const client = new DynamoDBClient(endpointOverride(endpoint));
    expect(await getItem(client)).toEqual({ ok: false, name: 'ValidationException', attempts: 1 });
    client.destroy();
  });
});

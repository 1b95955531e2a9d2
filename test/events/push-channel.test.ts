import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiGatewayManagementApiClient, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeFromServer, postFrame } from '../../lib/events/push/channel.ts';
import { workerGrants } from '../../lib/routes.ts';
import { AccessDeniedException } from '../../local/lambda/grant-guard.ts';
import { GrantViolation, runGranted } from '../../local/lambda/grants.ts';

/**
 * The @connections calls as signed requests of their own (lib/aws/signed-request.ts), against a real
 * HTTP server on 127.0.0.1 standing in for API Gateway: the request is the one the SDK client sends
 * for the same call (the reference, sent to the same server), its answers are read as the client
 * would read them, and the local grant guard still sees each call.
 */
interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}
let server: Server;
let seen: Seen[] = [];
/** Statuses to answer, in order; then 200. */
let answers: number[] = [];
let endpoint: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      const status = answers.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? undefined : JSON.stringify({ message: status === 410 ? 'Gone' : 'Forbidden' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prod`;
  process.env['PUSH_CONNECTIONS_ENDPOINT'] = endpoint;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  seen = [];
  answers = [];
});

// API Gateway's connection ids are base64: `=`, `+` and `/` must reach it encoded.
const connectionId = 'L0S+M9c/OFvHcCIhw=';
const frame = JSON.stringify({ id: 'evt_01', type: 'contract.funded', data: { note: 'ünïcode' } });

describe('@connections as one signed request per call', () => {
  it("sends what the SDK client sends: method, path under the stage, body, content type, signed for execute-api with Lambda's credentials", async () => {
    const saved = { ...process.env };
    // As in Lambda: no emulator, the role's credentials in the environment, a session token among them.
    delete process.env['DYNAMODB_ENDPOINT'];
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_SESSION_TOKEN: 'session-token',
      AWS_REGION: 'eu-west-1',
    });
    try {
      const sdk = new ApiGatewayManagementApiClient({ endpoint, region: 'eu-west-1' });
      await sdk.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: frame }));
      sdk.destroy();
      expect(await postFrame(connectionId, frame)).toBe('sent');
    } finally {
      process.env = saved;
    }
    const [reference, ours] = seen;
    expect(ours!.method).toBe(reference!.method);
    expect(ours!.path).toBe(reference!.path);
    expect(ours!.path).toBe('/prod/@connections/L0S%2BM9c%2FOFvHcCIhw%3D');
    expect(ours!.body).toBe(reference!.body);
    expect(ours!.headers['content-type']).toBe(reference!.headers['content-type']);
    expect(ours!.headers['content-length']).toBe(reference!.headers['content-length']);
    expect(ours!.headers['x-amz-security-token']).toBe('session-token');
    const scope = (auth: string | undefined) =>
      /Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/execute-api\/aws4_request/.test(auth ?? '');
    expect(scope(reference!.headers.authorization)).toBe(true);
    expect(scope(ours!.headers.authorization)).toBe(true);
    const signed = (auth: string | undefined) => /SignedHeaders=([^,]+)/.exec(auth ?? '')![1]!.split(';');
    expect(signed(ours!.headers.authorization)).toEqual(
      expect.arrayContaining(['host', 'x-amz-date', 'x-amz-security-token', 'content-type']),
    );
  });

  it('reads the answers as the SDK client would: 410 is gone, 429 and 5xx are tried again (three times in all), others throw', async () => {
    answers = [410];
    expect(await postFrame(connectionId, frame)).toBe('gone');
    answers = [429, 502];
    expect(await postFrame(connectionId, frame)).toBe('sent');
    expect(seen.length).toBe(4);
    answers = [500, 500, 500];
    await expect(postFrame(connectionId, frame)).rejects.toThrow(/PostToConnection: 500/);
    answers = [403];
    await expect(postFrame(connectionId, frame)).rejects.toThrow(/PostToConnection: 403 Forbidden/);
    answers = [410];
    await expect(closeFromServer(connectionId)).resolves.toBeUndefined();
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', path: '/prod/@connections/L0S%2BM9c%2FOFvHcCIhw%3D' });
  });

  it('is refused by the local grant guard in a scope without the connections grant, before any request', async () => {
    const { connections: _, ...withoutConnections } = workerGrants.push;
    let refused: unknown;
    const run = runGranted('pushWithoutGrant', withoutConnections, async () => {
      refused = await postFrame(connectionId, frame).catch((err: unknown) => err);
    });
    await expect(run).rejects.toThrow(GrantViolation);
    expect(refused).toBeInstanceOf(AccessDeniedException);
    expect(seen).toEqual([]);
    // With the worker's own grant the same call goes out.
    await runGranted('push', workerGrants.push, () => postFrame(connectionId, frame));
    expect(seen.length).toBe(1);
  });
});

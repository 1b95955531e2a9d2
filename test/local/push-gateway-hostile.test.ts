import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { PUSH } from '../../lib/core/settings.ts';
import { listSlots } from '../../lib/events/push/store.ts';
import { PUSH_WEBSOCKET_LIMITS } from '../../local/gateway/websocket-frames.ts';
import { openSocket, pushUrl, type TestSocket } from '../events/push-support.ts';
import { createAgent, waitFor } from '../events/support.ts';
import { createTestUser, type TestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';

/**
 * The local runtime survives any client of its push channel and its HTTP port: a connection reset
 * in the middle of a handshake, frames and messages beyond API Gateway's sizes, a text frame that
 * is not UTF-8, requests that never finish. After each, /health answers and another client's open
 * connection still works. Before, each of these ended the process (an 'error' nobody listened to).
 */
const api = useLocalApi();
let alice: TestUser;
let agentId: string;
let bystander: TestSocket;

beforeAll(async () => {
  // The sync function posts its frames to this API's @connections (npm start sets it so too).
  process.env['PUSH_CONNECTIONS_ENDPOINT'] = api.url;
  alice = await createTestUser();
  agentId = await createAgent(alice);
  bystander = openSocket(api.url, alice, { agent_id: agentId });
  await bystander.opened;
});

afterAll(async () => {
  await bystander?.close();
  // Every connection of the agent is gone, the ones reset during their handshake too: no slot is left held.
  await waitFor(async () => (await listSlots(agentId)).length === 0 || undefined, 'every slot of the agent freed');
});

const address = () => new URL(api.url);

/** A raw TCP connection to the local API, once connected. */
function rawSocket(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(address().port), address().hostname, () => resolve(socket));
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

const upgradeRequest = (query: string, extra: string[] = []) =>
  [
    `GET ${PUSH.localPath}?${query} HTTP/1.1`,
    `Host: ${address().host}`,
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    `Sec-WebSocket-Key: ${Buffer.from('0123456789abcdef').toString('base64')}`,
    ...extra,
    '',
    '',
  ].join('\r\n');

/** The service still answers: /health, and the bystander's connection answers a message with its error frame. */
async function stillServing(): Promise<void> {
  const health = await fetch(`${api.url}/health`);
  expect(health.status).toBe(200);
  const before = bystander.frames.length;
  bystander.send('{"action":"subscribe"}');
  await waitFor(() => bystander.frames.length > before || undefined, "the bystander's error frame");
  expect(bystander.frames.at(-1).error.code).toBe('validation_error');
}

/** A `ws` client (it sends what a browser's WebSocket would refuse to: any frame, any bytes). */
function hostileClient(): Promise<{ client: WebSocket; closed: Promise<number> }> {
  const client = new WebSocket(pushUrl(api.url, { agent_id: agentId }), [PUSH.protocol, `key.${alice.apiKey}`]);
  client.on('error', () => {});
  const closed = new Promise<number>((resolve) => client.once('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    client.once('open', () => resolve({ client, closed }));
    client.once('unexpected-response', (_req, res) => reject(new Error(`handshake refused: ${res.statusCode}`)));
  });
}

describe('the local push gateway survives hostile clients', () => {
  it('a connection reset right after the upgrade request, refused or accepted, 3 times each', async () => {
    for (let i = 0; i < 3; i++) {
      for (const request of [
        upgradeRequest('agent_id=agt_x'),
        upgradeRequest(`agent_id=${agentId}`, [`Sec-WebSocket-Protocol: ${PUSH.protocol}, key.${alice.apiKey}`]),
        upgradeRequest('agent_id=agt_x').replace(PUSH.localPath, '/elsewhere'),
      ]) {
        const socket = await rawSocket();
        socket.write(request);
        await new Promise((resolve) => setTimeout(resolve, 1));
        socket.resetAndDestroy();
      }
    }
    // Give the refusals time to be written to the reset sockets.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await stillServing();
  });

  it(`a frame over ${PUSH_WEBSOCKET_LIMITS.maxFrameBytes / 1024} KB closes the connection with 1009`, async () => {
    const { client, closed } = await hostileClient();
    client.send('x'.repeat(PUSH_WEBSOCKET_LIMITS.maxFrameBytes + 1));
    expect(await closed).toBe(1009);
    await stillServing();
  });

  it('a 300 KB frame closes the connection with 1009', async () => {
    const { client, closed } = await hostileClient();
    client.send('x'.repeat(300 * 1024));
    expect(await closed).toBe(1009);
    await stillServing();
  });

  it(`a message over ${PUSH_WEBSOCKET_LIMITS.maxMessageBytes / 1024} KB in frames within the frame limit closes with 1009; one within it is a message`, async () => {
    const frame = 'x'.repeat(PUSH_WEBSOCKET_LIMITS.maxFrameBytes);
    const within = await hostileClient();
    const frames: string[] = [];
    within.client.on('message', (data) => frames.push(String(data)));
    const fits = PUSH_WEBSOCKET_LIMITS.maxMessageBytes / PUSH_WEBSOCKET_LIMITS.maxFrameBytes;
    for (let i = 0; i < fits; i++) within.client.send(frame, { fin: i === fits - 1 });
    await waitFor(() => frames.length > 0 || undefined, 'the answer to a message at the limit');
    expect(JSON.parse(frames[0]!).error.code).toBe('invalid_json');
    within.client.close(1000);
    await within.closed;

    const over = await hostileClient();
    for (let i = 0; i <= fits; i++) over.client.send(frame, { fin: i === fits });
    expect(await over.closed).toBe(1009);
    await stillServing();
  });

  it('a request target that is no URL (`GET http://[`), as a request and as an upgrade: 404', async () => {
    for (const request of [
      `GET http://[ HTTP/1.1\r\nHost: ${address().host}\r\n\r\n`,
      upgradeRequest('agent_id=agt_x').replace(`${PUSH.localPath}?agent_id=agt_x`, 'http://['),
    ]) {
      const socket = await rawSocket();
      const answer = new Promise<string>((resolve) => socket.once('data', (d) => resolve(String(d))));
      socket.write(request);
      expect((await answer).split('\r\n')[0]).toBe('HTTP/1.1 404 Not Found');
      socket.destroy();
    }
    await stillServing();
  });

  it('a text frame that is not UTF-8 (7b ff fe 7d) closes the connection with 1007', async () => {
    const { client, closed } = await hostileClient();
    client.send(Buffer.from('7bfffe7d', 'hex'), { binary: false });
    expect(await closed).toBe(1007);
    await stillServing();
  });

  it('half-open HTTP requests: a body never finished, then half-closed or reset, on a route and on @connections', async () => {
    const partial = (path: string, extra: string[] = []) =>
      [`POST ${path} HTTP/1.1`, `Host: ${address().host}`, 'Content-Length: 1000', ...extra, '', '{"na'].join('\r\n');
    const requests = [
      partial('/agents', [`Authorization: Bearer ${alice.apiKey}`, 'Content-Type: application/json']),
      partial('/@connections/abc', ['Authorization: AWS4-HMAC-SHA256 Credential=x']),
      partial('/@connections/%E0%A4%A', ['Authorization: AWS4-HMAC-SHA256 Credential=x']),
    ];
    for (const request of requests) {
      const halfClosed = await rawSocket();
      halfClosed.write(request);
      halfClosed.end();
      const reset = await rawSocket();
      reset.write(request);
      await new Promise((resolve) => setTimeout(resolve, 5));
      reset.resetAndDestroy();
    }
    // A complete request to @connections with a malformed id: an answer, not a thrown URIError.
    const malformed = await fetch(`${api.url}/@connections/%E0%A4%A`, {
      method: 'POST',
      headers: { authorization: 'AWS4-HMAC-SHA256 Credential=x' },
      body: '{}',
    });
    expect(malformed.status).toBe(410);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await stillServing();
  });
});

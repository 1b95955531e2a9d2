import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUSH } from '../../lib/core/settings.ts';
import { type PushThread, startPushThread } from '../../local/emulators/push-thread.ts';
import { pushUrl } from '../events/push-support.ts';
import { createAgent, createContract, feedOf, publishTemplate, SIMPLE_SCHEMA, waitFor } from '../events/support.ts';
import { createTestUser, invoke } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';

/**
 * The push pipeline as `npm start` runs it: its stream poller and the push worker in a worker thread
 * (local/emulators/push-thread.ts), posting to the API's @connections stand-in in this thread. The
 * channel's guarantees are tested with the pipeline in-process (test/events/push.test.ts); this file
 * proves the thread runs the same worker and stops cleanly.
 */
const api = useLocalApi();
let thread: PushThread | undefined;

beforeAll(async () => {
  thread = await startPushThread({
    tableName: process.env['TABLE_NAME']!,
    dynamoEndpoint: process.env['DYNAMODB_ENDPOINT']!,
    connectionsEndpoint: api.url,
  });
});

afterAll(async () => {
  await thread?.stop();
});

describe('the push thread', () => {
  it('pushes a new event to an open connection that never asked (no sync: only the worker in the thread sends)', async () => {
    const alice = await createTestUser();
    const agentId = await createAgent(alice);
    const templateId = await publishTemplate(alice, SIMPLE_SCHEMA);
    const socket = new WebSocket(pushUrl(api.url, { agent_id: agentId }), [PUSH.protocol, `key.${alice.apiKey}`]);
    const frames: { id: string }[] = [];
    socket.addEventListener('message', (m) => frames.push(JSON.parse(String(m.data))));
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve);
      socket.addEventListener('error', () => reject(new Error('handshake refused')));
    });
    await invoke('fundContract', { caller: alice, params: { id: await createContract(alice, agentId, templateId) } });
    const feed = await feedOf(alice, agentId);
    expect(feed.length).toBeGreaterThan(0);
    await waitFor(() => frames.length >= feed.length || undefined, 'the pushed events');
    expect(frames).toEqual(feed);
    socket.close(1000);
  });

  it('stops: the thread ends, and a second stop is not needed', async () => {
    const stopped = thread!.stop();
    thread = undefined;
    await expect(stopped).resolves.toBeUndefined();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../lib/accounts/api-keys.ts';
import { PUSH } from '../../lib/core/settings.ts';
import { openConnection } from '../../lib/events/push/connections.ts';
import { listSlots } from '../../lib/events/push/store.ts';
import type { EventPipeline } from '../../local/emulators/event-pipeline.ts';
import { type PushThread, startPushThread } from '../../local/emulators/push-thread.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';
import { handshake, openSocket, pushUrl, type TestSocket } from './push-support.ts';
import {
  createAgent,
  createContract,
  feedOf,
  publishTemplate,
  SIMPLE_SCHEMA,
  startFilePipeline,
  waitFor,
} from './support.ts';

/**
 * The push channel end to end on the local runtime: the WebSocket stand-in on the local API's port
 * runs $connect/$default/$disconnect, the relay on the table's stream hands new feed slots to the
 * push worker (an asynchronous invoke), which posts to the stand-in's @connections API. Guarantees
 * as the feed's (docs/events.md, "Push"). The worker runs in a worker thread, as `npm start` runs it
 * (local/emulators/push-thread.ts).
 */
const api = useLocalApi();
let starting: Promise<PushThread> | undefined;
let pipeline: EventPipeline | undefined;
let alice: TestUser;
let mallory: TestUser;
let agentId: string;
let otherAgentId: string;
let templateId: string;

const fund = async (agent = agentId) =>
  invoke('fundContract', { caller: alice, params: { id: await createContract(alice, agent, templateId) } });

// The thread loads its modules (a second or two) while this one makes the callers, agents and events.
beforeAll(async () => {
  starting = startPushThread({ connectionsEndpoint: api.url });
  [alice, mallory] = await Promise.all([createTestUser(), createTestUser()]);
  [agentId, otherAgentId] = await Promise.all([createAgent(alice), createAgent(alice)]);
  templateId = await publishTemplate(alice, SIMPLE_SCHEMA);
  for (let i = 0; i < 3; i++) await fund();
  // The relay hands off to the worker's Invoke endpoint, known once the thread is ready.
  await starting;
  pipeline = await startFilePipeline();
});

afterAll(async () => {
  await pipeline?.stop();
  await (await starting)?.stop();
});

const ids = (socket: TestSocket) => socket.events().map((e) => e.id);
const key = (user: TestUser) => ({ 'Sec-WebSocket-Protocol': `${PUSH.protocol}, key.${user.apiKey}` });

describe('push channel', () => {
  it('sends the backlog on connect, then each new event once, in feed order, with the feed objects', async () => {
    const socket = openSocket(api.url, alice, { agent_id: agentId });
    await socket.opened;
    const feed = await feedOf(alice, agentId);
    await waitFor(() => socket.events().length >= feed.length || undefined, 'the backlog');
    expect(socket.events()).toEqual(feed);
    await fund();
    const grown = await feedOf(alice, agentId);
    await waitFor(() => socket.events().length >= grown.length || undefined, 'the live event');
    // A sync racing the push: whatever overlapped, nothing arrives out of order or twice after the client's drop.
    socket.sync();
    await fund();
    const last = await feedOf(alice, agentId);
    await waitFor(() => socket.events().some((e) => e.id === last.at(-1).id) || undefined, 'the next live event');
    expect(ids(socket)).toEqual(last.map((e) => e.id));
    // Whatever repeats the overlap caused, every frame is an event of the feed, none out of its place.
    const frameIds = socket.frames.map((f) => f.id);
    expect(frameIds.every((id) => last.some((e) => e.id === id))).toBe(true);
    await socket.close();
  });

  it('resumes after `after`: nothing before it, nothing skipped', async () => {
    const feed = await feedOf(alice, agentId);
    const socket = openSocket(api.url, alice, { agent_id: agentId, after: feed[1].id });
    await socket.opened;
    await waitFor(() => socket.events().length >= feed.length - 2 || undefined, 'the rest of the feed');
    expect(ids(socket)).toEqual(feed.slice(2).map((e) => e.id));
    await socket.close();
  });

  it('fans one event out to every connection of the agent, and to no other agent', async () => {
    const feed = await feedOf(alice, agentId);
    const after = feed.at(-1).id;
    const three = [0, 1, 2].map(() => openSocket(api.url, alice, { agent_id: agentId, after }));
    const other = openSocket(api.url, alice, { agent_id: otherAgentId });
    await Promise.all([...three, other].map((s) => s.opened));
    await fund();
    const newest = (await feedOf(alice, agentId)).at(-1);
    for (const socket of three) await waitFor(() => socket.events().length > 0 || undefined, 'the fanned-out event');
    await fund(otherAgentId);
    const others = await feedOf(alice, otherAgentId);
    await waitFor(() => other.events().length >= others.length || undefined, "the other agent's event");
    for (const socket of three) expect(socket.events()).toEqual([newest]);
    expect(other.events()).toEqual(others);
    await Promise.all([...three, other].map((s) => s.close()));
  });

  it("refuses a handshake as the feed refuses a request: no key 401, anyone else's agent 404, bad query 400", async () => {
    const feed = await feedOf(alice, agentId);
    expect((await handshake(api.url, { agent_id: agentId }, {})).status).toBe(401);
    const foreign = await handshake(api.url, { agent_id: agentId }, key(mallory));
    expect(foreign).toEqual({ status: 404, body: { error: { code: 'not_found', message: 'Agent not found.' } } });
    expect((await handshake(api.url, { agent_id: 'agt_nope' }, key(alice))).status).toBe(404);
    const unknown = await handshake(api.url, { agent_id: agentId, limit: '5' }, key(alice));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual([{ path: 'limit', message: 'Unknown field.' }]);
    // A cursor of another agent's feed is refused, as GET …/events refuses it.
    const otherFeed = await feedOf(alice, otherAgentId);
    const crossed = await handshake(api.url, { agent_id: agentId, after: otherFeed[0].id }, key(alice));
    expect(crossed.status).toBe(400);
    expect(crossed.body.error.details[0].path).toBe('after');
    expect((await handshake(api.url, { agent_id: agentId, after: feed[0].id }, key(alice))).status).toBe(101);
  });

  it('answers a message that is not a sync with an error frame, and keeps the connection', async () => {
    const feed = await feedOf(alice, agentId);
    const socket = openSocket(api.url, alice, { agent_id: agentId, after: feed.at(-1).id });
    await socket.opened;
    socket.send('{"action":"subscribe"}');
    socket.send('not json');
    await waitFor(() => socket.frames.length >= 2 || undefined, 'two error frames');
    expect(socket.frames.map((f) => f.error.code).sort()).toEqual(['invalid_json', 'validation_error']);
    await fund();
    await waitFor(() => socket.events().length === 1 || undefined, 'the next event on the same connection');
    await socket.close();
  });

  it(`caps an agent at ${PUSH.connectionsPerAgent} connections (429), and frees the slots of connections gone without a $disconnect (410)`, async () => {
    const agent = await createAgent(alice);
    // Connections API Gateway has closed while their $disconnect never reached us: they hold every slot.
    for (let i = 0; i < PUSH.connectionsPerAgent; i++)
      await openConnection(alice, { agentId: agent, connectionId: `gone-${i}=`, keyHash: hashApiKey(alice.apiKey) });
    const refused = await handshake(api.url, { agent_id: agent }, key(alice));
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    // The next event is posted to each: @connections answers 410, and each slot is freed.
    await fund(agent);
    await waitFor(async () => (await listSlots(agent)).length === 0 || undefined, 'the gone connections cleaned up');
    const socket = openSocket(api.url, alice, { agent_id: agent });
    await socket.opened;
    await waitFor(async () => (await listSlots(agent)).length === 1 || undefined, 'the new connection');
    await socket.close();
    await waitFor(async () => (await listSlots(agent)).length === 0 || undefined, '$disconnect freeing the slot');
  });

  it('ends a connection at its next sync once its access is gone: the agent deleted (404 frame, closed by the service, slot freed)', async () => {
    const agent = await createAgent(alice);
    const socket = openSocket(api.url, alice, { agent_id: agent });
    await socket.opened;
    await waitFor(async () => (await listSlots(agent)).length === 1 || undefined, 'the connection');
    expect((await invoke('deleteAgent', { caller: alice, params: { id: agent } })).status).toBe(204);
    socket.sync();
    expect(await socket.closed).toBe(1000);
    // The sync sent at open may run after the deletion too, concurrently with this one: the first to
    // find the agent gone answers 404 and frees the slot; the other then finds no slot and answers the
    // reconnect frame, if the socket is still open to receive it. Nothing else may arrive.
    const agentGone = { error: { code: 'not_found', message: 'Agent not found.' } };
    const slotGone = {
      error: { code: 'not_found', message: 'This connection is closed on our side; connect again with `after`.' },
    };
    expect(socket.frames).toContainEqual(agentGone);
    for (const frame of socket.frames) expect([agentGone, slotGone]).toContainEqual(frame);
    expect(await listSlots(agent)).toEqual([]);
  });
  it('pushes a new event to a connection that never asked (no sync: only the worker, in its thread, sends)', async () => {
    const agent = await createAgent(alice);
    const socket = new WebSocket(pushUrl(api.url, { agent_id: agent }), [PUSH.protocol, `key.${alice.apiKey}`]);
    const frames: { id: string }[] = [];
    socket.addEventListener('message', (m) => frames.push(JSON.parse(String(m.data))));
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve);
      socket.addEventListener('error', () => reject(new Error('handshake refused')));
    });
    await fund(agent);
    const feed = await feedOf(alice, agent);
    expect(feed.length).toBeGreaterThan(0);
    await waitFor(() => frames.length >= feed.length || undefined, 'the pushed events');
    expect(frames).toEqual(feed);
    socket.close(1000);
  });
});

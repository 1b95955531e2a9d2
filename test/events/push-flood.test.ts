import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../lib/core/errors.ts';
import { PUSH } from '../../lib/core/settings.ts';
import { takeKeyMessage } from '../../lib/events/push/message-limit.ts';
import { listSlots } from '../../lib/events/push/store.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { invokeFunction } from '../../local/invoke.ts';
import { createTestUser, type TestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';
import { openSocket } from './push-support.ts';
import { createAgent, waitFor } from './support.ts';

/**
 * A client that floods the push channel with syncs (docs/events.md, "Push"; PUSH.messageLimits): past
 * the connection's rate each message gets a `rate_limited` error frame, and the refusals that persist
 * close the connection, while another client's connection and the API go on answering. Twice: through
 * the local gateway (which refuses before invoking and closes with 1008), and through the sync
 * function itself, which counts in the store and is what holds deployed (it closes through
 * @connections, as a deployed function can: 1000).
 */
const api = useLocalApi();
let alice: TestUser;
const { perConnection, closeAfterRefused, perKey, windowMs } = PUSH.messageLimits;
/** The one connection the agent holds, once its $connect has claimed the slot. */
const theConnection = async (agent: string) =>
  (
    await waitFor(async () => {
      const slots = await listSlots(agent);
      return slots.length === 1 ? slots : undefined;
    }, 'the connection')
  )[0]!;
const rateLimitedFrames = (frames: any[]) => frames.filter((f) => f.error?.code === 'rate_limited');

beforeAll(async () => {
  process.env['PUSH_CONNECTIONS_ENDPOINT'] = api.url;
  alice = await createTestUser();
});

describe('a sync flood on one push connection', () => {
  it(`through the gateway: ${perConnection} syncs pass, then ${closeAfterRefused} rate_limited frames, then close 1008; another client is served`, async () => {
    const [floodAgent, otherAgent] = await Promise.all([createAgent(alice), createAgent(alice)]);
    const other = openSocket(api.url, alice, { agent_id: otherAgent });
    const flooder = openSocket(api.url, alice, { agent_id: floodAgent });
    await Promise.all([other.opened, flooder.opened]);
    // openSocket sent one sync on open; 3,000 more at once.
    for (let i = 0; i < 3000; i++) flooder.sync();
    expect(await flooder.closed).toBe(1008);
    const refused = rateLimitedFrames(flooder.frames);
    expect(refused).toHaveLength(closeAfterRefused);
    expect(refused.at(-1).error.message).toMatch(/the connection is closed/);
    // Nothing but the refusals: the agent has no events, and the passed syncs found nothing to send.
    expect(flooder.frames).toHaveLength(closeAfterRefused);

    expect((await fetch(`${api.url}/health`)).status).toBe(200);
    other.send('{"action":"subscribe"}');
    await waitFor(() => other.frames.length > 0 || undefined, "the other client's answer");
    expect(other.frames).toEqual([{ error: expect.objectContaining({ code: 'validation_error' }) }]);
    await waitFor(async () => (await listSlots(floodAgent)).length === 0 || undefined, "the flooder's slot freed");
    await other.close();
  });

  it('through the sync function (as deployed): the store counts every message; rate_limited frames, then the connection deleted', async () => {
    const agent = await createAgent(alice);
    const socket = openSocket(api.url, alice, { agent_id: agent });
    await socket.opened;
    const slot = await theConnection(agent);
    const message = (i: number) => ({
      requestContext: {
        routeKey: '$default',
        eventType: 'MESSAGE',
        connectionId: slot.connection_id,
        requestId: `flood-${i}`,
      },
      body: '{"action":"sync"}',
      isBase64Encoded: false,
    });
    // The sync openSocket sent counts too, whenever it lands: of these and it, the first perConnection
    // pass, the next closeAfterRefused are refused (the last of them closes), the rest are dropped.
    const total = perConnection - 1 + closeAfterRefused + 5;
    const answers = [];
    for (let i = 0; i < total; i++) answers.push(await invokeFunction('pushSync', message(i)));
    for (const answer of answers) expect(answer).toMatchObject({ statusCode: 200 });
    // DeleteConnection closes the connection as API Gateway does (1000); its $disconnect frees the slot.
    expect(await socket.closed).toBe(1000);
    expect(rateLimitedFrames(socket.frames)).toHaveLength(closeAfterRefused);
    await waitFor(async () => (await listSlots(agent)).length === 0 || undefined, 'the slot freed');
  });

  it(`an API key's connections together: ${perKey} messages per window, then rate_limited, until the window ends`, async () => {
    const keyHash = randomBytes(32).toString('hex');
    let now = 1_800_000_000_000;
    const clock = () => now;
    // The key's limit, scaled down so the test sends a few messages, not 1,200.
    for (let i = 0; i < 3; i++) await takeKeyMessage(keyHash, clock, 3);
    const refused = await takeKeyMessage(keyHash, clock, 3).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'rate_limited', retryAfterSeconds: windowMs / 1000 });
    now += windowMs;
    await takeKeyMessage(keyHash, clock, 3);
  });

  it("counts every message of a connection against its key, a malformed one too (else a key's many connections would pass its rate)", async () => {
    // A key of its own: the others' messages in this file count in alice's key's window.
    const bob = await createTestUser();
    const agent = await createAgent(bob);
    const socket = openSocket(api.url, bob, { agent_id: agent });
    await socket.opened;
    const slot = await theConnection(agent);
    const keyCount = async () =>
      ((
        await db().send(
          new GetCommand({ TableName: tableName(), Key: keys.pushKeyLimit(slot.key_hash), ConsistentRead: true }),
        )
      ).Item?.['window_count'] as number | undefined) ?? 0;
    // The one sync openSocket sent on open.
    await waitFor(async () => ((await keyCount()) === 1 ? true : undefined), "the open's sync counted");
    const malformed = (i: number) => ({
      requestContext: {
        routeKey: '$default',
        eventType: 'MESSAGE',
        connectionId: slot.connection_id,
        requestId: `bad-${i}`,
      },
      body: 'not json at all',
      isBase64Encoded: false,
    });
    for (let i = 0; i < 3; i++)
      expect(await invokeFunction('pushSync', malformed(i))).toMatchObject({ statusCode: 200 });
    expect(await keyCount()).toBe(1 + 3);
    await socket.close();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type FeedEvent, MarketplaceClient } from '../../client/index.ts';
import { listSlots } from '../../lib/events/push/store.ts';
import { type EventPipeline, startEventPipeline } from '../../local/emulators/event-pipeline.ts';
import { type PushWorker, startPushWorker } from '../../local/emulators/push-worker.ts';
import { useLocalApi } from '../support/local-api.ts';
import { clientForNewUser } from './support/local-client.ts';
import { templateInput } from './support/template-input.ts';

/** `events.subscribe` against the local runtime's push channel: the global WebSocket, no dependency. */
const api = useLocalApi();
let worker: PushWorker | undefined;
let pipeline: EventPipeline | undefined;

// The push worker in-process, and the relay that hands it new feed slots (the stream's reader).
beforeAll(async () => {
  worker = await startPushWorker({ connectionsEndpoint: api.url });
  pipeline = await startEventPipeline({
    tableName: process.env['TABLE_NAME']!,
    dynamoEndpoint: process.env['DYNAMODB_ENDPOINT']!,
  });
});
afterAll(async () => {
  await pipeline?.stop();
  await worker?.stop();
});

/** What API Gateway does when it ends a connection (its 2-hour limit, a deploy): DELETE @connections/<id>. */
async function dropConnections(agentId: string): Promise<number> {
  const slots = await listSlots(agentId);
  for (const slot of slots) {
    const res = await fetch(`${api.url}/@connections/${encodeURIComponent(slot.connection_id)}`, {
      method: 'DELETE',
      headers: { authorization: 'AWS4-HMAC-SHA256 Credential=local/test' },
    });
    expect(res.status).toBe(204);
  }
  return slots.length;
}

describe('client: events.subscribe', () => {
  it('yields the feed after `after`, then live events, and resumes after a drop with nothing missed or repeated', async () => {
    const { client } = await clientForNewUser(api.url);
    const agent = await client.agents.create({ name: 'subscriber' });
    const template = await client.templates.publish(templateInput());
    const newContract = () =>
      client.templates.instantiate(template.id, {
        variables: { url: 'https://s.example' },
        amount_cents: 100,
        agent_id: agent.id,
      });
    const first = await newContract();
    await client.contracts.fund(first.id);
    await client.contracts.release(first.id);
    const feed = (await client.events.list(agent.id)).data;
    expect(feed.map((e) => e.type)).toEqual(['contract.funded', 'contract.released']);

    const controller = new AbortController();
    const got: FeedEvent[] = [];
    const second = await newContract();
    for await (const event of client.events.subscribe(agent.id, { after: feed[0]!.id, signal: controller.signal })) {
      got.push(event);
      if (got.length === 1) {
        // The backlog after `after` came; now the service drops the connection, and an event happens meanwhile.
        expect(await dropConnections(agent.id)).toBe(1);
        await client.contracts.fund(second.id);
      }
      if (got.length === 2) await client.contracts.release(second.id);
      if (got.length === 3) controller.abort();
    }
    const all = (await client.events.list(agent.id)).data;
    expect(got).toEqual(all.slice(1));
  });

  it("throws the REST API's answer when the handshake is refused for good: someone else's agent, a bad key", async () => {
    const { client: owner } = await clientForNewUser(api.url);
    const { client: other } = await clientForNewUser(api.url);
    const agent = await owner.agents.create({ name: 'private' });
    const attempt = async (client: MarketplaceClient) => {
      for await (const _ of client.events.subscribe(agent.id)) break;
    };
    await expect(attempt(other)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    const badKey = new MarketplaceClient({ apiKey: 'mk_not-a-key', baseUrl: api.url, maxRetries: 0 });
    const refused = await attempt(badKey).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(401);
  });
});

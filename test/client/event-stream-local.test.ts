import { describe, expect, it } from 'vitest';
import { parseSse } from '../../client/http/sse.ts';
import type { StreamedEvent } from '../../client/index.ts';
import { useLocalApi } from '../support/local-api.ts';
import { clientForNewUser } from './support/local-client.ts';
import { templateInput } from './support/template-input.ts';

const api = useLocalApi();

describe('client: events.stream against the local API', () => {
  it('streams the agent’s events over SSE, and resumes after lastEventId', async () => {
    const { client } = await clientForNewUser(api.url);
    const agent = await client.agents.create({ name: 'streamer' });
    const template = await client.templates.publish(templateInput());
    const contract = await client.templates.instantiate(template.id, {
      variables: { url: 'https://c.example' },
      amount_cents: 100,
      agent_id: agent.id,
    });
    await client.contracts.fund(contract.id);
    await client.contracts.release(contract.id);

    const controller = new AbortController();
    const streamed: StreamedEvent[] = [];
    for await (const item of client.events.stream(agent.id, { signal: controller.signal })) {
      streamed.push(item);
      if (streamed.length === 2) controller.abort();
    }
    expect(
      streamed.map((s) => [s.event, s.data.type, 'contract_id' in s.data.data ? s.data.data.contract_id : undefined]),
    ).toEqual([
      ['contract.funded', 'contract.funded', contract.id],
      ['contract.released', 'contract.released', contract.id],
    ]);
    expect(streamed.map((s) => s.id)).toEqual(streamed.map((s) => s.data.id));

    const resumed = new AbortController();
    const after: string[] = [];
    for await (const item of client.events.stream(agent.id, { lastEventId: streamed[0]!.id, signal: resumed.signal })) {
      after.push(item.id);
      resumed.abort();
    }
    expect(after).toEqual([streamed[1]!.id]);
  });

  it('delivers an event written while the stream is open', async () => {
    const { client } = await clientForNewUser(api.url);
    const agent = await client.agents.create({ name: 'live' });
    const template = await client.templates.publish(templateInput());
    const contract = await client.templates.instantiate(template.id, {
      variables: { url: 'https://d.example' },
      amount_cents: 100,
      agent_id: agent.id,
    });

    const controller = new AbortController();
    const stream = client.events.stream(agent.id, { signal: controller.signal });
    const first = stream.next();
    first.catch(() => undefined); // settled below; don't report it as unhandled while fund() runs
    await client.contracts.fund(contract.id);
    const { value } = await first;
    controller.abort();
    expect(value).toMatchObject({ event: 'contract.funded', data: { data: { contract_id: contract.id } } });
  });

  it('starts where `since` says (an event id, or a time), and the parser hears an id-only start line', async () => {
    const { client } = await clientForNewUser(api.url);
    const agent = await client.agents.create({ name: 'since' });
    const template = await client.templates.publish(templateInput());
    const contract = await client.templates.instantiate(template.id, {
      variables: { url: 'https://e.example' },
      amount_cents: 100,
      agent_id: agent.id,
    });
    await client.contracts.fund(contract.id);
    await client.contracts.release(contract.id);
    const [funded, released] = (await client.events.list(agent.id)).data;

    for (const since of [funded!.id, released!.created_at]) {
      const controller = new AbortController();
      const got: string[] = [];
      for await (const item of client.events.stream(agent.id, { since, signal: controller.signal })) {
        got.push(item.id);
        controller.abort();
      }
      expect(got, since).toEqual([released!.id]);
    }

    const heard: string[] = [];
    const body = new Response('retry: 1000\n: connected\n\nid: evt_start\n\nid: evt_1\nevent: x\ndata: {}\n\n').body!;
    const frames = [];
    for await (const frame of parseSse(body, (id) => heard.push(id))) frames.push(frame.lastEventId);
    expect(frames).toEqual(['evt_1']);
    expect(heard).toEqual(['evt_start', 'evt_1']);
  });
});

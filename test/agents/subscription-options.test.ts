import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { destinationKeys } from '../../lib/store/keys.ts';
import { CUSTOM_HEADERS } from '../../lib/webhooks/custom-headers.ts';
import { publishTemplate, SIMPLE_SCHEMA } from '../events/support.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';

/**
 * Filters, custom headers and trace context through the routes: the refusals name the offending
 * path, a filter that can never match is allowed but flagged, a change is in the agent's feed, the
 * test route names the failing clause, and a request's trace is kept on the events it causes.
 */
async function newAgent(owner?: TestUser) {
  const caller = owner ?? (await createTestUser());
  const { body } = await invoke('createAgent', { caller, body: { name: 'bot' } });
  return { owner: caller, id: body.id as string };
}

const configure = (caller: TestUser, id: string, extra: Record<string, unknown>) =>
  invoke('configureWebhook', {
    caller,
    params: { id },
    body: { webhook_url: 'https://hooks.example.com/a', events: ['contract.funded'], ...extra },
  });

const BIG_ONLY = { op: 'gte', path: 'data.amount_cents', value: 10_000 };

const setFilter = (caller: TestUser, id: string, filter: unknown) =>
  invoke('setWebhookFilter', { caller, params: { id }, body: { filter } });

describe('filters on a webhook', () => {
  it('stores and shows a filter, flags one that can never match, and records each change in the feed', async () => {
    const { owner, id } = await newAgent();
    await configure(owner, id, {});
    const set = await setFilter(owner, id, BIG_ONLY);
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ filter: BIG_ONLY, filter_never_matches: false });

    const impossible = {
      op: 'and',
      clauses: [BIG_ONLY, { op: 'lt', path: 'data.amount_cents', value: 5_000 }],
    };
    const flagged = await setFilter(owner, id, impossible);
    expect(flagged.status).toBe(200);
    expect(flagged.body).toMatchObject({ filter: impossible, filter_never_matches: true });
    // A kind the webhook does not subscribe to can never pass either.
    const otherKind = await setFilter(owner, id, { op: 'eq', path: 'type', value: 'contract.released' });
    expect(otherKind.body.filter_never_matches).toBe(true);

    // A new configuration keeps it (the filter is not what the handshake checks), and takes no filter itself; null removes it.
    expect((await configure(owner, id, {})).body.filter).toEqual(otherKind.body.filter);
    expect((await configure(owner, id, { filter: null })).status).toBe(400);
    expect((await setFilter(owner, id, null)).body).toMatchObject({ filter: null, filter_never_matches: false });
    expect((await setFilter(owner, id, undefined)).status).toBe(400);
    const stranger = await createTestUser();
    expect((await setFilter(stranger, id, BIG_ONLY)).status).toBe(404);

    const feed = await invoke('listAgentEvents', { caller: owner, params: { id }, query: { limit: '100' } });
    const changes = feed.body.data.filter((e: { type: string }) => e.type === 'agent.filter.changed');
    expect(changes.map((e: { data: Record<string, unknown> }) => [e.data['filter'], e.data['never_matches']])).toEqual([
      [BIG_ONLY, false],
      [impossible, true],
      [otherKind.body.filter, true],
      [null, false],
    ]);
    expect(changes[0].data).toMatchObject({ agent_id: id, subscription: 'webhook', destination_id: null });
  });

  it.each([
    ['an unknown op', { op: 'like', path: 'data.a', value: 'x' }, 'filter.op'],
    ['a path outside the event', { op: 'exists', path: 'body.amount' }, 'filter.path'],
    [
      'a nested wrong value',
      { op: 'or', clauses: [BIG_ONLY, { op: 'in', path: 'data.a', values: [{ nested: 1 }] }] },
      'filter.clauses.1.values.0',
    ],
    [
      'a date bound that is no date',
      { op: 'and', clauses: [{ op: 'gt', path: 'created_at', value: 'last week' }] },
      'filter.clauses.0.value',
    ],
    [
      'too deep a filter',
      {
        op: 'not',
        clause: {
          op: 'not',
          clause: { op: 'not', clause: { op: 'not', clause: { op: 'not', clause: { op: 'not', clause: BIG_ONLY } } } },
        },
      },
      'filter.clause.clause.clause.clause.clause.clause',
    ],
  ])('refuses %s with a 400 that names the path', async (_what, filter, path) => {
    const { owner, id } = await newAgent();
    const res = await setFilter(owner, id, filter);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });
});

describe('filters on an AWS destination', () => {
  it('takes one at registration, changes it with PUT (keeping the one it replaces for older events), and records the change', async () => {
    const { owner, id } = await newAgent();
    const created = await invoke('createDestination', {
      caller: owner,
      params: { id },
      body: { arn: 'arn:aws:sqs:us-east-1:123456789012:orders', events: ['contract.funded'], filter: BIG_ONLY },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ filter: BIG_ONLY, filter_never_matches: false });
    const params = { id, destination_id: created.body.id };
    const never = { op: 'eq', path: 'type', value: 'contract.refunded' };
    const changed = await invoke('setDestinationFilter', { caller: owner, params, body: { filter: never } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ filter: never, filter_never_matches: true });
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: destinationKeys.destination(id, created.body.id) }),
    );
    expect(Item).toMatchObject({ filter: never, previous_filter: BIG_ONLY, filter_since: expect.any(String) });
    const feed = await invoke('listAgentEvents', { caller: owner, params: { id }, query: { limit: '100' } });
    expect(
      feed.body.data.filter((e: { type: string }) => e.type === 'agent.filter.changed').map((e: any) => e.data),
    ).toEqual([
      expect.objectContaining({
        subscription: 'destination',
        destination_id: created.body.id,
        filter: never,
        never_matches: true,
      }),
    ]);
    const stranger = await createTestUser();
    expect((await invoke('setDestinationFilter', { caller: stranger, params, body: { filter: null } })).status).toBe(
      404,
    );
    const test = await invoke('testFilter', {
      caller: owner,
      params: { id },
      body: { destination_id: created.body.id, event: { type: 'contract.funded', data: { amount_cents: 1 } } },
    });
    expect(test.body).toMatchObject({
      matched: false,
      never_matches: true,
      failed: { reason: 'type is "contract.funded", not "contract.refunded".' },
    });
  });
});

describe('custom headers', () => {
  it.each([
    ['a hop-by-hop header', 'Connection', 'headers.0.name'],
    ['Transfer-Encoding', 'transfer-encoding', 'headers.0.name'],
    ['Host', 'Host', 'headers.0.name'],
    ['Content-Length', 'Content-Length', 'headers.0.name'],
    ['a webhook-* header', 'Webhook-Signature', 'headers.0.name'],
    ['an x-service-* header', 'X-Service-Event', 'headers.0.name'],
    ['traceparent', 'traceparent', 'headers.0.name'],
    ['a name that is no token', 'X Key', 'headers.0.name'],
  ])('refuses %s', async (_what, name, path) => {
    const { owner, id } = await newAgent();
    const res = await configure(owner, id, { headers: [{ name, value: 'v' }] });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
  });

  it('refuses values with line breaks or past the bound, a name twice, and more than the documented count', async () => {
    const { owner, id } = await newAgent();
    const refused = async (headers: unknown) => {
      const res = await configure(owner, id, { headers });
      expect(res.status).toBe(400);
      return res.body.error.details.map((d: { path: string }) => d.path);
    };
    expect(await refused([{ name: 'X-A', value: 'a\r\nX-Injected: 1' }])).toEqual(['headers.0.value']);
    expect(await refused([{ name: 'X-A', value: 'v'.repeat(CUSTOM_HEADERS.maxValueLength + 1) }])).toEqual([
      'headers.0.value',
    ]);
    expect(
      await refused([
        { name: 'X-A', value: '1' },
        { name: 'x-a', value: '2' },
      ]),
    ).toEqual(['headers.1.name']);
    const many = Array.from({ length: CUSTOM_HEADERS.maxCount + 1 }, (_, i) => ({ name: `X-H${i}`, value: 'v' }));
    expect(await refused(many)).toEqual(['headers']);
    const most = await configure(owner, id, { headers: many.slice(1) });
    expect(most.status).toBe(200);
    expect(most.body.headers).toHaveLength(CUSTOM_HEADERS.maxCount);
    expect((await configure(owner, id, { headers: [] })).body.headers).toEqual([]);
  });
});

describe('POST …/filters/test', () => {
  it("says whether the filter passed, which clause failed, at the webhook's pins, for a given, named or newest event", async () => {
    const { owner, id } = await newAgent();
    await setFilter(owner, id, BIG_ONLY);
    const test = (body: unknown) => invoke('testFilter', { caller: owner, params: { id }, body });
    const small = { type: 'contract.funded', data: { contract_id: 'ctr_x', status: 'FUNDED', amount_cents: 2_500 } };

    const own = await test({ event: small });
    expect(own.status).toBe(200);
    expect(own.body).toEqual({
      matched: false,
      event_id: null,
      failed: { at: '', clause: BIG_ONLY, reason: 'data.amount_cents is 2500, not gte 10000.' },
      never_matches: false,
    });
    const given = await test({
      event: small,
      filter: { op: 'or', clauses: [{ op: 'eq', path: 'data.status', value: 'FUNDED' }, BIG_ONLY] },
    });
    expect(given.body).toMatchObject({ matched: true, failed: null });
    const nested = await test({
      event: small,
      filter: {
        op: 'and',
        clauses: [
          { op: 'exists', path: 'data.contract_id' },
          { op: 'not', clause: { op: 'eq', path: 'data.status', value: 'FUNDED' } },
        ],
      },
    });
    expect(nested.body.failed).toMatchObject({ at: 'clauses.1', reason: 'The clause under `not` matched.' });

    // The newest event of the feed is the filter change just recorded: its kind is not filtered, but a test says how the filter judges it.
    const newest = await test({ filter: { op: 'eq', path: 'type', value: 'agent.filter.changed' } });
    expect(newest.body).toMatchObject({ matched: true });
    expect(newest.body.event_id).toMatch(/^evt_/);
    const byId = await test({ event_id: newest.body.event_id, filter: { op: 'exists', path: 'data.nothing' } });
    expect(byId.body.failed).toMatchObject({ at: '', reason: 'data.nothing is absent.' });

    expect((await test({ event: small, event_id: newest.body.event_id })).status).toBe(400);
    expect((await test({ event_id: 'evt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC' })).status).toBe(404);
    const stranger = await createTestUser();
    expect((await invoke('testFilter', { caller: stranger, params: { id }, body: { event: small } })).status).toBe(404);
    const bare = await newAgent(owner);
    const none = await invoke('testFilter', { caller: owner, params: { id: bare.id }, body: { event: small } });
    expect(none.status).toBe(400);
    expect(none.body.error.details).toEqual([{ path: 'filter', message: 'Give a filter: the subscription has none.' }]);
  });
});

describe('trace context', () => {
  it("keeps the request's traceparent on the events it causes, and starts one (and says so) when there is none", async () => {
    const owner = await createTestUser();
    const { id: agentId } = await newAgent(owner);
    const templateId = await publishTemplate(owner, SIMPLE_SCHEMA);
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const made = await invoke('createContract', {
      caller: owner,
      body: { template_id: templateId, variables: {}, amount_cents: 100, agent_id: agentId },
    });
    const funded = await invoke('fundContract', {
      caller: owner,
      params: { id: made.body.id },
      headers: { traceparent, tracestate: 'congo=t61rcWkgMzE' },
    });
    expect(funded.status, JSON.stringify(funded.body)).toBe(200);
    expect(funded.headers['traceresponse']).toBe(traceparent);
    expect(funded.headers['x-service-trace']).toBe('continued');
    const feed = await invoke('listAgentEvents', { caller: owner, params: { id: agentId }, query: { limit: '100' } });
    const event = feed.body.data.find((e: { type: string }) => e.type === 'contract.funded');
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.event(agentId, event.id) }));
    expect(Item!['trace']).toEqual({ traceparent, tracestate: 'congo=t61rcWkgMzE' });

    const untraced = await invoke('getAgent', { caller: owner, params: { id: agentId } });
    expect(untraced.headers['x-service-trace']).toBe('started');
    expect(untraced.headers['traceresponse']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const invalid = await invoke('getAgent', {
      caller: owner,
      params: { id: agentId },
      headers: { traceparent: '00-00000000000000000000000000000000-b7ad6b7169203331-01' },
    });
    expect(invalid.headers['x-service-trace']).toBe('started');
  });
});

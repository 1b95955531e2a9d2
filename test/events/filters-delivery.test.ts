import http from 'node:http';
import type net from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { parseTraceparent, type TraceContext, traceScope } from '../../lib/core/trace-context.ts';
import { sqs } from '../../lib/events/delivery/queue.ts';
import { commitWithEvents } from '../../lib/events/feed/outbox.ts';
import { relayBatch } from '../../lib/events/relay.ts';
import { matchesFilter } from '../../lib/events/stream-filter.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { writtenDuring } from '../support/captured-output.ts';
import { closeAfterTest } from '../support/close-after-test.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { eventStreamRecord, useDeliveryQueue } from './queue-harness.ts';
import { createAgent } from './support.ts';

/**
 * Filters at fan-out, on DynamoDB Local and fauxqs: an event the webhook's filter refuses gets no
 * delivery record, no queue message and no POST (counted at the store's and the queue's clients),
 * and the ones it lets through carry the endpoint's custom headers and the causing trace.
 */
const queue = useDeliveryQueue();

interface Request {
  headers: http.IncomingHttpHeaders;
  json: { type: string; id?: string; challenge?: string };
}

async function startReceiver(): Promise<{ url: string; requests: Request[] }> {
  const requests: Request[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      requests.push({ headers: req.headers, json });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: json.challenge }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closeAfterTest(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hooks`, requests };
}

type Middleware = (
  next: (a: unknown) => unknown,
  context: { commandName?: string },
) => (args: { input: any }) => unknown;
interface Stack {
  add(middleware: Middleware, options: { step: string; name: string }): void;
  remove(name: string): void;
}

/** Commands (and the items or entries each carries) sent through the store's and the queue's clients while `run` runs. */
async function counted(run: () => Promise<void>): Promise<{ store: string[]; written: number; queued: number }> {
  const seen = { store: [] as string[], written: 0, queued: 0 };
  const name = `count-${Math.random()}`;
  const dbStack = db().middlewareStack as unknown as Stack;
  const sqsStack = sqs().middlewareStack as unknown as Stack;
  dbStack.add(
    (next: (a: unknown) => unknown, context: { commandName?: string }) => async (args: { input: any }) => {
      seen.store.push(context.commandName ?? '?');
      for (const requests of Object.values(args.input.RequestItems ?? {}))
        if (context.commandName?.startsWith('BatchWrite')) seen.written += (requests as unknown[]).length;
      return next(args);
    },
    { step: 'initialize', name },
  );
  sqsStack.add(
    (next: (a: unknown) => unknown) => async (args: { input: any }) => {
      seen.queued += args.input.Entries?.length ?? (args.input.MessageBody ? 1 : 0);
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await run();
  } finally {
    dbStack.remove(name);
    sqsStack.remove(name);
  }
  return seen;
}

const CALLER_TRACE = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

async function fundedEvents(agentId: string, amounts: number[], trace?: TraceContext): Promise<string[]> {
  const ids: string[] = [];
  for (const amount of amounts) {
    const emit = () =>
      commitWithEvents(() => [], {
        agentIds: [agentId],
        type: 'contract.funded',
        data: { contract_id: 'ctr_01KAKQ8A1B2C3D4E5F6G7H8J9K', status: 'FUNDED', amount_cents: amount },
      });
    const result = trace ? await traceScope.run(trace, emit) : await emit();
    if (!result.committed) throw new Error('not committed');
    ids.push(result.events[0]!.id);
  }
  return ids;
}

async function enabledAgent(
  owner: TestUser,
  url: string,
  extra: Record<string, unknown>,
  filter?: unknown,
): Promise<string> {
  const agentId = await createAgent(owner);
  const configured = await invoke('configureWebhook', {
    caller: owner,
    params: { id: agentId },
    body: { webhook_url: url, events: ['contract.funded'], ...extra },
  });
  expect(configured.status, JSON.stringify(configured.body)).toBe(200);
  const verified = await invoke('verifyWebhook', { caller: owner, params: { id: agentId } });
  expect(verified.body.webhook_status).toBe('ENABLED');
  if (filter)
    expect(
      (await invoke('setWebhookFilter', { caller: owner, params: { id: agentId }, body: { filter } })).status,
    ).toBe(200);
  return agentId;
}

const BIG_ONLY = { op: 'gte', path: 'data.amount_cents', value: 10_000 };

describe('filters at fan-out', () => {
  it('a refused event costs no delivery record, no queue message and no POST; a passed one is delivered as before', async () => {
    const owner = await createTestUser();
    const receiver = await startReceiver();
    const filtered = await enabledAgent(owner, receiver.url, {}, BIG_ONLY);
    const unfiltered = await enabledAgent(owner, receiver.url, {});
    // Ten events each, one of them over the filter's bound: a 10 % match rate.
    const amounts = [20_000, ...Array.from({ length: 9 }, (_, i) => 100 + i)];
    const filteredIds = await fundedEvents(filtered, amounts);
    const unfilteredIds = await fundedEvents(unfiltered, amounts);
    const recordsOf = (agentId: string, ids: string[]) =>
      Promise.all(ids.map((id, i) => eventStreamRecord(agentId, id, String(i + 1).padStart(5, '0'))));
    const filteredRecords = await recordsOf(filtered, filteredIds);
    const unfilteredRecords = await recordsOf(unfiltered, unfilteredIds);

    // The stream's own filter (the event source's criteria) already lets only the matching row through…
    expect(filteredRecords.map((r) => matchesFilter(r))).toEqual(amounts.map((a) => a >= 10_000));
    expect(unfilteredRecords.every((r) => matchesFilter(r))).toBe(true);

    // …and the relay, handed every row anyway, makes nothing of the refused ones.
    const withFilter = await counted(async () => expect(await relayBatch(filteredRecords)).toEqual([]));
    const without = await counted(async () => expect(await relayBatch(unfilteredRecords)).toEqual([]));
    expect(withFilter).toEqual({ store: ['BatchGetItemCommand', 'BatchWriteItemCommand'], written: 1, queued: 1 });
    expect(without).toEqual({ store: ['BatchGetItemCommand', 'BatchWriteItemCommand'], written: 10, queued: 10 });

    // The stream as deployed hands the relay only what its criteria pass: nothing at all for a refused row.
    const refusedOnly = await counted(async () =>
      expect(await relayBatch(filteredRecords.filter((r) => matchesFilter(r)).slice(1))).toEqual([]),
    );
    expect(refusedOnly).toEqual({ store: [], written: 0, queued: 0 });

    const { received } = await queue.deliverVisible();
    expect(received).toBe(11);
    const posted = receiver.requests.filter((r) => r.json.type === 'contract.funded');
    expect(posted.filter((r) => filteredIds.includes(r.json.id!)).map((r) => r.json.id)).toEqual([filteredIds[0]]);
    expect(posted.filter((r) => unfilteredIds.includes(r.json.id!))).toHaveLength(10);
    const deliveries = await invoke('listDeliveries', { caller: owner, params: { id: filtered } });
    expect(deliveries.body.data.map((d: { event_id: string }) => d.event_id)).toEqual([filteredIds[0]]);
  });

  it('carries the custom headers (secret ones unsealed, never logged) on the handshake and every delivery, and the causing trace with a new span per attempt', async () => {
    const owner = await createTestUser();
    const receiver = await startReceiver();
    const savedLevel = process.env['LOG_LEVEL'];
    process.env['LOG_LEVEL'] = 'debug';
    let agentId = '';
    let eventId = '';
    const written = await writtenDuring(async () => {
      agentId = await enabledAgent(owner, receiver.url, {
        headers: [
          { name: 'X-Gateway-Key', value: 'gw-key-0123456789abcdef', secret: true },
          { name: 'X-Team', value: 'payments' },
        ],
      });
      const handshake = receiver.requests.find((r) => r.json.type === 'service.webhook.verify')!;
      expect(handshake.headers['x-gateway-key']).toBe('gw-key-0123456789abcdef');
      expect(handshake.headers['x-team']).toBe('payments');

      const agent = await invoke('getAgent', { caller: owner, params: { id: agentId } });
      expect(agent.body.headers).toEqual([
        { name: 'X-Gateway-Key', value: null, secret: true },
        { name: 'X-Team', value: 'payments', secret: false },
      ]);
      [eventId] = (await fundedEvents(agentId, [500], { traceparent: CALLER_TRACE, tracestate: 'vendor=abc' })) as [
        string,
      ];
      await queue.relay(agentId, eventId!);
      await queue.deliverVisible();
      // A second attempt of the same delivery (a forced retry): same trace, another span.
      const retry = await invoke('retryDelivery', {
        caller: owner,
        params: { id: agentId, delivery_id: `dlv_${eventId!.slice(4)}` },
        body: { force: true },
      });
      expect(retry.status, JSON.stringify(retry.body)).toBe(202);
      await queue.deliverVisible();
    }).finally(() => {
      if (savedLevel === undefined) delete process.env['LOG_LEVEL'];
      else process.env['LOG_LEVEL'] = savedLevel;
    });

    const attempts = receiver.requests.filter((r) => r.json.id === eventId);
    expect(attempts).toHaveLength(2);
    const parents = attempts.map((a) => parseTraceparent(a.headers['traceparent'] as string)!);
    expect(parents.map((p) => p.traceId)).toEqual([
      '4bf92f3577b34da6a3ce929d0e0e4736',
      '4bf92f3577b34da6a3ce929d0e0e4736',
    ]);
    expect(new Set([...parents.map((p) => p.parentId), '00f067aa0ba902b7']).size).toBe(3);
    expect(attempts.map((a) => a.headers['tracestate'])).toEqual(['vendor=abc', 'vendor=abc']);
    for (const a of attempts) {
      expect(a.headers['x-gateway-key']).toBe('gw-key-0123456789abcdef');
      expect(a.headers['x-team']).toBe('payments');
    }
    expect(written).toContain('delivery attempt'); // the logs were captured at all
    expect(written).not.toContain('gw-key-0123456789abcdef');
    const stored = await db().send(new GetCommand({ TableName: tableName(), Key: keys.agent(agentId) }));
    expect(stored.Item!['webhook_headers'][0].sealed.ct).toEqual(expect.any(String));
    expect(JSON.stringify(stored.Item)).not.toContain('gw-key-0123456789abcdef');
  });
});

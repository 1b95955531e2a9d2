import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { newId } from '../../lib/core/ids.ts';
import { enqueueDeliveries } from '../../lib/events/delivery/queue.ts';
import { newDelivery } from '../../lib/events/delivery/record.ts';
import { createDeliveries } from '../../lib/events/delivery/store.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { type EventPipelineOptions, startEventPipeline } from '../../local/emulators/event-pipeline.ts';
import { closeAfterTest } from '../support/close-after-test.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';

/**
 * Shared by the contract and event tests: templates, agents and enabled webhooks made through the
 * real routes, and a real HTTP receiver on 127.0.0.1 that answers the verification handshake
 * and records every delivery with its exact bytes. Receivers on 127.0.0.1 need DEVELOPMENT_MODE,
 * which the integration tier's setup file turns on for every file (test/support/per-file-table.ts).
 */

export interface Delivered {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: { id: string; type: string; agent_id: string; created_at: string; data: Record<string, unknown> };
}

export interface WebhookReceiver {
  url: string;
  deliveries: Delivered[];
  /** Status to answer a delivery with (default 200); may take its time. */
  answer: (delivery: Delivered) => number | Promise<number>;
  /** Extra headers on every delivery answer (a Location for redirects). */
  headers: Record<string, string>;
  /** Whether handshakes are answered (default true; false answers them 503), and how many came. */
  echoChallenges: boolean;
  challenges: number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = {
    url: '',
    deliveries: [],
    answer: () => 200,
    headers: {},
    echoChallenges: true,
    challenges: 0,
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const json = JSON.parse(body);
      if (json.type === 'service.webhook.verify') {
        receiver.challenges += 1;
        if (!receiver.echoChallenges) res.writeHead(503).end();
        else
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: json.challenge }));
        return;
      }
      const delivery = { headers: req.headers, body, json };
      receiver.deliveries.push(delivery);
      void Promise.resolve(receiver.answer(delivery)).then((status) =>
        res
          .writeHead(status, { 'content-type': 'application/json', ...receiver.headers })
          .end(JSON.stringify({ received: status < 300 })),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actual = (server.address() as net.AddressInfo).port;
  receiver.url = `http://127.0.0.1:${actual}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  closeAfterTest(receiver.close);
  return receiver;
}

export async function publishTemplate(
  author: TestUser,
  schema: unknown,
  visibility: 'public' | 'private' | 'unlisted' = 'public',
): Promise<string> {
  const res = await invoke('publishTemplate', {
    caller: author,
    body: {
      name: 'Uptime check',
      slug: `uptime-${randomUUID().slice(0, 8)}`,
      category: 'http',
      version: '1.2.3',
      schema,
      visibility,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

export const SIMPLE_SCHEMA = {
  variables: [],
  checks: [{ id: 'ping', type: 'http', config: { url: 'https://example.com' } }],
};

export async function createAgent(owner: TestUser): Promise<string> {
  const res = await invoke('createAgent', { caller: owner, body: { name: 'agent' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** Configured and verified through the real routes: ENABLED, with its signing secret. */
export async function enableWebhook(owner: TestUser, agentId: string, url: string, events: string[]): Promise<string> {
  const secret = await configureWebhook(owner, agentId, url, events);
  const verified = await invoke('verifyWebhook', { caller: owner, params: { id: agentId } });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  expect(verified.body.webhook_status).toBe('ENABLED');
  return secret;
}

/** PENDING_VERIFICATION, with its signing secret. */
export async function configureWebhook(
  owner: TestUser,
  agentId: string,
  url: string,
  events: string[],
): Promise<string> {
  const res = await invoke('configureWebhook', {
    caller: owner,
    params: { id: agentId },
    body: { webhook_url: url, events },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const secret = await invoke('getWebhookSecret', { caller: owner, params: { id: agentId } });
  return secret.body.webhook_secret as string;
}

export async function createContract(
  owner: TestUser,
  agentId: string,
  templateId: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await invoke('createContract', {
    caller: owner,
    body: { template_id: templateId, variables: {}, amount_cents: 12_345, agent_id: agentId, ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** The agent item as the delivery workers read it (strongly consistent). */
export const agentItem = async (agentId: string): Promise<Record<string, any>> =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: keys.agent(agentId), ConsistentRead: true }))).Item!;

export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function deliveriesOf(owner: TestUser, agentId: string): Promise<any[]> {
  const res = await invoke('listDeliveries', { caller: owner, params: { id: agentId } });
  expect(res.status).toBe(200);
  return res.body.data;
}

export async function feedOf(owner: TestUser, agentId: string): Promise<any[]> {
  const res = await invoke('listAgentEvents', { caller: owner, params: { id: agentId }, query: { limit: '100' } });
  expect(res.status).toBe(200);
  return res.body.data;
}

/**
 * The local event pipeline (stream → relay → queue → delivery) on this test file's table and
 * emulator, with the short visibility timeout and retry count the delivery tests wait on.
 */
export const startFilePipeline = (options: Partial<EventPipelineOptions> = {}) =>
  startEventPipeline({
    tableName: process.env['TABLE_NAME']!,
    dynamoEndpoint: process.env['DYNAMODB_ENDPOINT']!,
    visibilityTimeoutSeconds: 1,
    maxReceiveCount: 5,
    ...options,
  });

export const sendTestEvent = async (caller: TestUser, agentId: string) =>
  expect((await invoke('sendTestEvent', { caller, params: { id: agentId } })).status).toBe(202);

/**
 * A backlog for an endpoint that has had its test event: `count` copies of that event as new
 * pending deliveries, created and enqueued as the relay does.
 */
export async function enqueueBacklog(owner: TestUser, agentId: string, count: number): Promise<void> {
  const [sample] = (await feedOf(owner, agentId)).filter((e) => e.type === 'service.webhook.test');
  const records = Array.from({ length: count }, () => newDelivery({ ...sample, id: newId('evt') }));
  await createDeliveries(records);
  const sent = await enqueueDeliveries(
    records.map((r) => ({ agent_id: r.agent_id, delivery_id: r.id, event_id: r.event_id })),
  );
  expect(sent.failed).toEqual([]);
}

/**
 * Two tenants, each an account with an agent and a receiver: `sick` (to be made slow or dead by
 * the test) has had its test event delivered once, the sample its backlog is made of.
 */
export async function sickAndHealthyTenants(sickAnswer?: WebhookReceiver['answer']) {
  const sickOwner = await createTestUser();
  const sick = await startWebhookReceiver();
  if (sickAnswer) sick.answer = sickAnswer;
  const sickAgent = await createAgent(sickOwner);
  await enableWebhook(sickOwner, sickAgent, sick.url, ['contract.funded']);
  const healthyOwner = await createTestUser();
  const healthy = await startWebhookReceiver();
  const healthyAgent = await createAgent(healthyOwner);
  await enableWebhook(healthyOwner, healthyAgent, healthy.url, ['contract.funded']);
  await sendTestEvent(sickOwner, sickAgent);
  await waitFor(() => sick.deliveries.length === 1 || undefined, 'the first delivery');
  return { sickOwner, sick, sickAgent, healthyOwner, healthy, healthyAgent };
}

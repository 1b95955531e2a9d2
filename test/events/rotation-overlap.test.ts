import { createHmac } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../client/index.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { signingSecrets } from '../../lib/webhooks/rotation.ts';
import { newWebhookSecret } from '../../lib/webhooks/secret.ts';
import type { EventPipeline } from '../../local/emulators/event-pipeline.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import {
  createAgent,
  createContract,
  type Delivered,
  enableWebhook,
  publishTemplate,
  SIMPLE_SCHEMA,
  startFilePipeline,
  startWebhookReceiver,
  waitFor,
} from './support.ts';

/**
 * Rotation overlap (docs/webhooks.md, "Rotating the secret"): after a rotation, deliveries to a
 * real receiver carry `v1,<new> v1,<previous>` in `webhook-signature` until the overlap ends, and
 * `x-service-signature` is the new secret's alone.
 */
process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,1,1';

let pipeline: EventPipeline;
let owner: TestUser;

beforeAll(async () => {
  pipeline = await startFilePipeline();
  owner = await createTestUser();
});
afterAll(async () => {
  await pipeline?.stop();
});

const rotate = (agentId: string, body?: unknown, caller = owner) =>
  invoke('rotateWebhookSecret', { caller, params: { id: agentId }, ...(body === undefined ? {} : { body }) });
const serviceSignatureOf = (secret: string, d: Delivered) =>
  createHmac('sha256', secret).update(`${d.headers['x-service-timestamp']}.${d.body}`).digest('hex');
const standardOk = (secret: string, d: Delivered) => {
  try {
    new Webhook(secret).verify(d.body, d.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};
const clientOk = (secret: string, d: Delivered) =>
  verifyWebhook({ secret, headers: d.headers as Record<string, string>, rawBody: d.body }).then(
    () => true,
    () => false,
  );

describe('POST …/webhook/secret/rotate with an overlap', () => {
  it('signs with the new and the previous secret until the overlap ends; with 0 only the new one', async () => {
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    const first = await enableWebhook(owner, agentId, receiver.url, ['contract.funded', 'contract.released']);
    const templateId = await publishTemplate(owner, SIMPLE_SCHEMA);
    const contractId = await createContract(owner, agentId, templateId);

    const rotated = await rotate(agentId); // no body: the default overlap (24 h)
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    const second = rotated.body.webhook_secret as string;
    expect(second).not.toBe(first);
    expect((await invoke('fundContract', { caller: owner, params: { id: contractId } })).status).toBe(200);
    const funded = await waitFor(
      () => receiver.deliveries.find((d) => d.json.type === 'contract.funded'),
      'the funded delivery',
      30_000,
    );
    expect(String(funded.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(funded.headers['x-service-signature']).toBe(serviceSignatureOf(second, funded));
    expect(funded.headers['x-service-signature']).not.toBe(serviceSignatureOf(first, funded));
    // A receiver with either secret verifies, with the reference library and with the client's verifyWebhook.
    for (const secret of [first, second]) {
      expect(standardOk(secret, funded), 'standardwebhooks').toBe(true);
      expect(await clientOk(secret, funded), 'verifyWebhook').toBe(true);
    }
    expect(await clientOk(newWebhookSecret(), funded), 'an unrelated secret').toBe(false);

    const third = await rotate(agentId, { expire_previous_in_seconds: 0 });
    expect(third.status).toBe(200);
    expect((await invoke('releaseContract', { caller: owner, params: { id: contractId } })).status).toBe(200);
    const released = await waitFor(
      () => receiver.deliveries.find((d) => d.json.type === 'contract.released'),
      'the released delivery',
      30_000,
    );
    expect(String(released.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(standardOk(third.body.webhook_secret, released)).toBe(true);
    expect(await clientOk(third.body.webhook_secret, released)).toBe(true);
    for (const old of [first, second]) {
      expect(standardOk(old, released)).toBe(false);
      expect(await clientOk(old, released)).toBe(false);
    }
  }, 90_000);

  it('two rotations at once: the current secret is one answer, and the previous is the other, which was current until then', async () => {
    const agentId = await createAgentWithSecret();
    const answers = await Promise.all([rotate(agentId), rotate(agentId)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const issued = answers.map((a) => a.body.webhook_secret as string);
    const current = (await invoke('getWebhookSecret', { caller: owner, params: { id: agentId } })).body
      .webhook_secret as string;
    expect(issued).toContain(current);
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.agent(agentId), ConsistentRead: true }),
    );
    expect(Item?.['previous_webhook_secret']).toBe(issued.find((s) => s !== current));
    expect(Item?.['previous_secret_expires_at']).toBeGreaterThan(Date.now() / 1000 + 86_000);
  });

  it('takes 0–86400 whole seconds and nothing else; another account’s agent is 404', async () => {
    const agentId = await createAgentWithSecret();
    for (const body of [
      { expire_previous_in_seconds: -1 },
      { expire_previous_in_seconds: 86_401 },
      { expire_previous_in_seconds: 1.5 },
      { expire_previous_in_seconds: '60' },
      { other: 1 },
    ]) {
      const res = await rotate(agentId, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    for (const body of [{}, { expire_previous_in_seconds: 0 }, { expire_previous_in_seconds: 86_400 }])
      expect((await rotate(agentId, body)).status, JSON.stringify(body)).toBe(200);
    expect((await rotate(agentId, {}, await createTestUser())).status).toBe(404);
  });
});

describe('signingSecrets', () => {
  const now = new Date('2026-11-23T00:00:00.000Z');
  const at = now.getTime() / 1000;
  it('adds the previous secret strictly before its expiry, never a copy of the current one, never an absent one', () => {
    expect(signingSecrets('new', { previous_webhook_secret: 'old', previous_secret_expires_at: at + 1 }, now)).toEqual([
      'new',
      'old',
    ]);
    expect(signingSecrets('new', { previous_webhook_secret: 'old', previous_secret_expires_at: at }, now)).toEqual([
      'new',
    ]);
    expect(signingSecrets('new', { previous_webhook_secret: 'new', previous_secret_expires_at: at + 60 }, now)).toEqual(
      ['new'],
    );
    expect(signingSecrets('new', { previous_webhook_secret: null, previous_secret_expires_at: null }, now)).toEqual([
      'new',
    ]);
    expect(signingSecrets('new', {}, now)).toEqual(['new']);
  });
});

async function createAgentWithSecret(): Promise<string> {
  const agentId = await createAgent(owner);
  const res = await invoke('configureWebhook', {
    caller: owner,
    params: { id: agentId },
    body: { webhook_url: 'https://hooks.example.com/in', events: ['contract.funded'] },
  });
  expect(res.status).toBe(200);
  return agentId;
}

import { DeleteQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../client/index.ts';
import { type LocalEventBridge, startLocalEventBridge } from '../../fixtures/eventbridge-endpoint.ts';
import { endpointOverride } from '../../lib/aws-endpoint.ts';
import { deliverDestinationBatch } from '../../lib/events/delivery/destination-batch.ts';
import { verifyDestination } from '../../lib/events/destinations.ts';
import type { EventPipeline } from '../../local/emulators/event-pipeline.ts';
import { runAsWorker } from '../../local/lambda/grants.ts';
import {
  createAgent,
  createContract,
  publishTemplate,
  SIMPLE_SCHEMA,
  startFilePipeline,
  waitFor,
} from '../events/support.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { createCustomerQueue, nextCustomerMessage } from './customer-queue.ts';

/**
 * AWS destinations end to end on the local runtime (docs/webhooks.md, "AWS destinations"): a customer
 * queue in the SQS emulator, registered, verified with the code read from the queue, then a contract
 * event delivered into it through table stream → relay → destinations' queue → worker; EventBridge
 * against the local endpoint of fixtures/eventbridge-endpoint.ts, which judges the bus policy on the
 * session's tag as IAM would: the confused deputy is refused there.
 */
process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,1,1';

let pipeline: EventPipeline;
let bus: LocalEventBridge;
let customer: SQSClient;
let owner: TestUser;
let templateId: string;

beforeAll(async () => {
  pipeline = await startFilePipeline();
  bus = await startLocalEventBridge();
  process.env['EVENTBRIDGE_ENDPOINT'] = bus.endpoint;
  customer = new SQSClient(endpointOverride(pipeline.sqsEndpoint));
  owner = await createTestUser();
  templateId = await publishTemplate(owner, SIMPLE_SCHEMA);
});

afterAll(async () => {
  customer?.destroy();
  await bus?.close();
  await pipeline?.stop();
});

const customerQueue = (name: string) => createCustomerQueue(customer, name);
const nextMessage = (url: string) => nextCustomerMessage(customer, url);

const register = (caller: TestUser, agentId: string, arn: string, events = ['contract.funded']) =>
  invoke('createDestination', { caller, params: { id: agentId }, body: { arn, events } });

describe('an SQS destination', () => {
  it('is verified with the code read from the queue, then receives signed events, test events and manual retries', async () => {
    const agentId = await createAgent(owner);
    const queue = await customerQueue('orders');
    const created = await register(owner, agentId, queue.arn);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ kind: 'sqs', arn: queue.arn, status: 'PENDING_VERIFICATION' });
    const policy = created.body.policy;
    expect(policy.Statement[0]).toMatchObject({
      Action: 'sqs:SendMessage',
      Resource: queue.arn,
      Condition: { StringEquals: { 'aws:PrincipalTag/marketplace-account': owner.userId } },
    });
    const secret = created.body.signing_secret as string;
    const destinationId = created.body.id as string;

    const verification = await nextMessage(queue.url);
    const payload = JSON.parse(verification.body);
    expect(payload).toMatchObject({ type: 'service.destination.verify', destination_id: destinationId });
    await verifyWebhook({ rawBody: verification.body, headers: verification.headers, secret });

    const wrong = await invoke('verifyDestination', {
      caller: owner,
      params: { id: agentId, destination_id: destinationId },
      body: { code: 'AAAAA-AAAAA' },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.code).toBe('verification_code_mismatch');
    expect(wrong.body.error.message).toContain('4 tries left');

    const verified = await invoke('verifyDestination', {
      caller: owner,
      params: { id: agentId, destination_id: destinationId },
      body: { code: payload.code.toLowerCase() },
    });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.status).toBe('ENABLED');

    // A contract event: into the queue, the same signed event a webhook gets, signature as attributes.
    const contractId = await createContract(owner, agentId, templateId);
    expect((await invoke('fundContract', { caller: owner, params: { id: contractId } })).status).toBe(200);
    const delivered = await nextMessage(queue.url);
    const event = await verifyWebhook({ rawBody: delivered.body, headers: delivered.headers, secret });
    expect(event).toMatchObject({ type: 'contract.funded', agent_id: agentId, data: { contract_id: contractId } });
    expect(delivered.headers['webhook-id']).toBe((event as { id: string }).id);

    // Attempt history: the delivery names its destination.
    const list = await waitFor(async () => {
      const res = await invoke('listDeliveries', { caller: owner, params: { id: agentId } });
      return res.body.data.find((d: { status: string }) => d.status === 'succeeded');
    }, 'a succeeded delivery');
    expect(list).toMatchObject({ destination_id: destinationId, event_type: 'contract.funded', attempts: 1 });
    const detail = await invoke('getDelivery', { caller: owner, params: { id: agentId, delivery_id: list.id } });
    expect(detail.body.attempts[0]).toMatchObject({ attempt: 1, status_code: 200, error: null });
    expect(detail.body.attempts[0].response_body).toMatch(/^MessageId /);

    // A manual retry sends it again (forced: it succeeded).
    const retried = await invoke('retryDelivery', {
      caller: owner,
      params: { id: agentId, delivery_id: list.id },
      body: { force: true },
    });
    expect(retried.status, JSON.stringify(retried.body)).toBe(202);
    const again = await nextMessage(queue.url);
    expect(JSON.parse(again.body).id).toBe((event as { id: string }).id);

    // The test event reaches it too, whatever it subscribes to.
    const test = await invoke('sendTestEvent', { caller: owner, params: { id: agentId } });
    expect(test.status, JSON.stringify(test.body)).toBe(202);
    const testMessage = await nextMessage(queue.url);
    expect(JSON.parse(testMessage.body)).toMatchObject({ id: test.body.event_id, type: 'service.webhook.test' });

    // A replay to the destination sends the funded event again, as a new delivery with the same event id.
    const replay = await invoke('replayEvents', {
      caller: owner,
      params: { id: agentId },
      body: { since: new Date(Date.now() - 3600_000).toISOString(), destination_id: destinationId },
    });
    expect(replay.status, JSON.stringify(replay.body)).toBe(202);
    expect(replay.body.replayed).toBe(1);
    const replayed = await nextMessage(queue.url);
    expect(JSON.parse(replayed.body)).toMatchObject({ id: (event as { id: string }).id, type: 'contract.funded' });
    await verifyWebhook({ rawBody: replayed.body, headers: replayed.headers, secret });
    const deliveries = await waitFor(async () => {
      const res = await invoke('listDeliveries', { caller: owner, params: { id: agentId } });
      const mine = res.body.data.filter((d: { destination_id: string | null }) => d.destination_id === destinationId);
      return mine.length === 3 && mine.every((d: { status: string }) => d.status === 'succeeded') ? mine : undefined;
    }, 'three succeeded deliveries to the destination (event, test event, replay)');
    expect(deliveries.map((d: { event_type: string }) => d.event_type).sort()).toEqual([
      'contract.funded',
      'contract.funded',
      'service.webhook.test',
    ]);
  });

  it('answers an expired code clearly and sends a new one; the fifth wrong code uses it up', async () => {
    const agentId = await createAgent(owner);
    const queue = await customerQueue('expiry');
    const created = await register(owner, agentId, queue.arn);
    const destinationId = created.body.id as string;
    const first = JSON.parse((await nextMessage(queue.url)).body);

    // The clock moved a day on: the right code no longer counts, and a new message comes.
    const later = Date.now() + 24 * 3600_000 + 1000;
    await expect(verifyDestination(owner, agentId, destinationId, first.code, later)).rejects.toMatchObject({
      code: 'verification_code_expired',
      message: expect.stringContaining('The code has expired. A new verification message is on its way'),
    });
    const second = JSON.parse((await nextMessage(queue.url)).body);
    expect(second.code).not.toBe(first.code);

    const attempts = await Promise.all(
      Array.from({ length: 6 }, () =>
        invoke('verifyDestination', {
          caller: owner,
          params: { id: agentId, destination_id: destinationId },
          body: { code: '00000-00000' },
        }),
      ),
    );
    const codes = attempts.map((a) => a.body.error.code).sort();
    // Exactly five wrong tries count under concurrency; the sixth finds the code used up.
    expect(codes.filter((c) => c === 'verification_code_mismatch').length).toBeGreaterThanOrEqual(5);
    const right = await invoke('verifyDestination', {
      caller: owner,
      params: { id: agentId, destination_id: destinationId },
      body: { code: second.code },
    });
    expect(right.status).toBe(422);
    expect(right.body.error.code).toBe('verification_code_expired');
  });

  it("is refused for an ARN that is not a queue or bus, or is in the service's own account, and is 404 to another account", async () => {
    const agentId = await createAgent(owner);
    process.env['SERVICE_ACCOUNT_ID'] = '123456789012';
    try {
      for (const arn of [
        'arn:aws:sqs:us-east-1:123456789012:deliveries',
        'arn:aws:sns:us-east-1:210987654321:topic',
        'arn:aws:sqs:moon-1:210987654321:q',
        'arn:aws:events:us-east-1:210987654321:rule/x',
      ]) {
        const res = await register(owner, agentId, arn);
        expect(res.status, arn).toBe(400);
        expect(res.body.error.details[0].path).toBe('arn');
      }
    } finally {
      delete process.env['SERVICE_ACCOUNT_ID'];
    }
    const queue = await customerQueue('mine');
    const created = await register(owner, agentId, queue.arn);
    const other = await createTestUser();
    const params = { id: agentId, destination_id: created.body.id };
    expect((await invoke('getDestination', { caller: other, params })).status).toBe(404);
    expect((await invoke('deleteDestination', { caller: other, params })).status).toBe(404);
    expect((await invoke('listDestinations', { caller: other, params: { id: agentId } })).status).toBe(404);
    expect((await invoke('deleteDestination', { caller: owner, params })).status).toBe(204);
    expect((await invoke('getDestination', { caller: owner, params })).status).toBe(404);
  });
});

describe('auto-disable', () => {
  it('disables a destination whose attempts have all failed for the auto-disable wait (a moved clock), and says why', async () => {
    const agentId = await createAgent(owner);
    const queue = await customerQueue('gone');
    const created = await register(owner, agentId, queue.arn);
    const destinationId = created.body.id as string;
    const { code } = JSON.parse((await nextMessage(queue.url)).body);
    const params = { id: agentId, destination_id: destinationId };
    expect((await invoke('verifyDestination', { caller: owner, params, body: { code } })).body.status).toBe('ENABLED');
    // The customer deletes the queue: every attempt now fails.
    await customer.send(new DeleteQueueCommand({ QueueUrl: queue.url }));
    const contractId = await createContract(owner, agentId, templateId);
    expect((await invoke('fundContract', { caller: owner, params: { id: contractId } })).status).toBe(200);
    const failed = await waitFor(async () => {
      const res = await invoke('listDeliveries', { caller: owner, params: { id: agentId } });
      return res.body.data.find((d: { status: string }) => d.status === 'failed');
    }, 'the delivery failed after its three attempts');
    expect(failed.last_error).toContain('QueueDoesNotExist');
    expect((await invoke('getDestination', { caller: owner, params })).body.status).toBe('ENABLED');

    // One more (manual) attempt, on a clock moved past the wait: the destination is disabled.
    const later = () => Date.now() + 5 * 24 * 3600_000 + 60_000;
    const message = {
      agent_id: agentId,
      destination_id: destinationId,
      delivery_id: failed.id,
      event_id: failed.event_id,
      manual: true,
    };
    await runAsWorker('deliverToDestinations', () =>
      deliverDestinationBatch([{ messageId: 'm-1', receiptHandle: 'r-1', body: JSON.stringify(message) }], {
        now: later,
      }),
    );
    const disabled = (await invoke('getDestination', { caller: owner, params })).body;
    expect(disabled.status).toBe('DISABLED');
    expect(disabled.status_reason).toContain('disabled automatically');
  });
});

describe("a deleted agent's destination", () => {
  it('sends nothing more once its agent is deleted: a message queued before the deletion is abandoned', async () => {
    const agentId = await createAgent(owner);
    const queue = await customerQueue('deleted-agent');
    const created = await register(owner, agentId, queue.arn);
    const destinationId = created.body.id as string;
    const { code } = JSON.parse((await nextMessage(queue.url)).body);
    const params = { id: agentId, destination_id: destinationId };
    expect((await invoke('verifyDestination', { caller: owner, params, body: { code } })).body.status).toBe('ENABLED');
    const contractId = await createContract(owner, agentId, templateId);
    expect((await invoke('fundContract', { caller: owner, params: { id: contractId } })).status).toBe(200);
    await nextMessage(queue.url);
    const sent = await waitFor(async () => {
      const res = await invoke('listDeliveries', { caller: owner, params: { id: agentId } });
      return res.body.data.find((d: { status: string }) => d.status === 'succeeded');
    }, 'the delivery');

    expect((await invoke('deleteAgent', { caller: owner, params: { id: agentId } })).status).toBe(204);
    // A forced resend that was on the destinations' queue when the agent went: the worker does not send it.
    const message = {
      agent_id: agentId,
      destination_id: destinationId,
      delivery_id: sent.id,
      event_id: sent.event_id,
      manual: true,
      force: true,
    };
    const keep = await runAsWorker('deliverToDestinations', () =>
      deliverDestinationBatch([{ messageId: 'm-1', receiptHandle: 'r-1', body: JSON.stringify(message) }]),
    );
    expect(keep).toEqual([]);
    const { Messages } = await customer.send(new ReceiveMessageCommand({ QueueUrl: queue.url, WaitTimeSeconds: 1 }));
    expect(Messages ?? []).toEqual([]);
  });
});

describe('an EventBridge destination', () => {
  it('gets the verification message and events on the bus, signed in the detail; another account naming the same bus is refused by its policy', async () => {
    const busArn = 'arn:aws:events:us-east-1:210987654321:event-bus/orders';
    const agentId = await createAgent(owner);
    const created = await register(owner, agentId, busArn);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const secret = created.body.signing_secret as string;
    const destinationId = created.body.id as string;
    // The bus has no policy yet: the first verification message is refused, and the destination says why.
    const params = { id: agentId, destination_id: destinationId };
    const refused = await waitFor(async () => {
      const res = await invoke('getDestination', { caller: owner, params });
      return res.body.verification.last_error ?? undefined;
    }, 'the first verification message refused');
    expect(refused).toContain('ResourceNotFoundException');
    // The bus owner applies the policy the service gave them, and asks for a new message.
    bus.addBus(busArn, created.body.policy);
    const resend = await invoke('verifyDestination', { caller: owner, params, body: { code: 'none-yet' } });
    expect(resend.body.error.code).toBe('verification_code_expired');
    expect(resend.body.error.message).toContain('A new verification message is on its way');
    const verification = await waitFor(() => bus.entries.get(busArn)?.[0], 'the verification message on the bus');
    expect(verification).toMatchObject({ Source: 'template-marketplace', DetailType: 'service.destination.verify' });
    const detail = JSON.parse(verification.Detail);
    const code = JSON.parse(detail.body).code;
    await verifyWebhook({ rawBody: detail.body, headers: detail.headers, secret });
    const verified = await invoke('verifyDestination', {
      caller: owner,
      params: { id: agentId, destination_id: destinationId },
      body: { code },
    });
    expect(verified.body.status).toBe('ENABLED');

    // Tenant B names the same bus: the service's session for B is tagged B, which A's policy refuses.
    const intruder = await createTestUser();
    const intruderAgent = await createAgent(intruder);
    const refusedBefore = bus.refused.length;
    const theirs = await register(intruder, intruderAgent, busArn);
    expect(theirs.status).toBe(201);
    const pending = await waitFor(async () => {
      const res = await invoke('getDestination', {
        caller: intruder,
        params: { id: intruderAgent, destination_id: theirs.body.id },
      });
      return res.body.verification.last_error ? res.body : undefined;
    }, "the intruder's verification refused");
    expect(pending.status).toBe('PENDING_VERIFICATION');
    expect(pending.verification.last_error).toContain('AccessDeniedException');
    expect(bus.refused.slice(refusedBefore).join('\n')).toContain(`session tag ${intruder.userId}`);
    // Without the code (it never reached any bus) the intruder cannot enable it.
    const guess = await invoke('verifyDestination', {
      caller: intruder,
      params: { id: intruderAgent, destination_id: theirs.body.id },
      body: { code: code },
    });
    expect(guess.body.error.code).toBe('verification_code_expired');
    expect(bus.entries.get(busArn)).toHaveLength(1);

    // The owner's own events still arrive, signed in the detail.
    const contractId = await createContract(owner, agentId, templateId);
    expect((await invoke('fundContract', { caller: owner, params: { id: contractId } })).status).toBe(200);
    const put = await waitFor(() => bus.entries.get(busArn)?.[1], 'the event on the bus');
    expect(put.DetailType).toBe('contract.funded');
    const eventDetail = JSON.parse(put.Detail);
    const event = await verifyWebhook({ rawBody: eventDetail.body, headers: eventDetail.headers, secret });
    expect(event).toMatchObject({ type: 'contract.funded', data: { contract_id: contractId } });
  });
});

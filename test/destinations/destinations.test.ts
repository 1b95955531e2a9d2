import { DeleteQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../client/index.ts';
import { type LocalEventBridge, startLocalEventBridge } from '../../fixtures/eventbridge-endpoint.ts';
import { endpointOverride } from '../../lib/aws-endpoint.ts';
import { DESTINATION_REGISTRATION_LIMITS, DESTINATIONS, MAX_CLOCK_SKEW_MS } from '../../lib/core/settings.ts';
import { parseTraceparent } from '../../lib/core/trace-context.ts';
import { readDestination } from '../../lib/destinations/store.ts';
import { deliverDestinationBatch } from '../../lib/events/delivery/destination-batch.ts';
import { verifyDestination } from '../../lib/events/destinations.ts';
import { db, tableName } from '../../lib/store/client.ts';
import { destinationKeys } from '../../lib/store/keys.ts';
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

const CALLER_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const CALLER_TRACE = `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`;

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
    // For a queue under the customer's own KMS key: the same role and tag, only through SQS in the queue's region.
    expect(created.body.key_policy_statement).toMatchObject({
      Principal: policy.Statement[0].Principal,
      Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
      Condition: {
        StringEquals: {
          'aws:PrincipalTag/marketplace-account': owner.userId,
          'kms:ViaService': `sqs.${queue.arn.split(':')[3]}.amazonaws.com`,
        },
      },
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

    // A contract event: into the queue, the same signed event a webhook gets, signature as attributes,
    // and the causing request's trace as `traceparent` (a new span) and `tracestate` attributes.
    const contractId = await createContract(owner, agentId, templateId);
    const funded = await invoke('fundContract', {
      caller: owner,
      params: { id: contractId },
      headers: { traceparent: CALLER_TRACE, tracestate: 'vendor=abc' },
    });
    expect(funded.status).toBe(200);
    const delivered = await nextMessage(queue.url);
    const event = await verifyWebhook({ rawBody: delivered.body, headers: delivered.headers, secret });
    expect(event).toMatchObject({ type: 'contract.funded', agent_id: agentId, data: { contract_id: contractId } });
    expect(delivered.headers['webhook-id']).toBe((event as { id: string }).id);
    const firstSpan = parseTraceparent(delivered.headers['traceparent'])!;
    expect(firstSpan).toMatchObject({ traceId: CALLER_TRACE_ID, flags: '01' });
    expect(firstSpan.parentId).not.toBe(CALLER_SPAN_ID);
    expect(delivered.headers['tracestate']).toBe('vendor=abc');
    // SQS takes at most 10 message attributes: all of them, the trace included (docs/webhooks.md, section 12).
    expect(Object.keys(delivered.headers)).toHaveLength(9);

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
    // The same trace, another attempt's span.
    const secondSpan = parseTraceparent(again.headers['traceparent'])!;
    expect(secondSpan.traceId).toBe(CALLER_TRACE_ID);
    expect(new Set([firstSpan.parentId, secondSpan.parentId, CALLER_SPAN_ID]).size).toBe(3);

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
      // A region that does not exist, and partitions the sender role can never reach: a 400 saying so.
      for (const [arn, message] of [
        ['arn:aws:sqs:us-fake-9:111122223333:q', '"us-fake-9" is not an AWS region'],
        ['arn:aws-cn:sqs:cn-north-1:111122223333:q', 'The partition "aws-cn" cannot be reached'],
        [
          'arn:aws-us-gov:events:us-gov-west-1:111122223333:event-bus/b',
          'The partition "aws-us-gov" cannot be reached',
        ],
      ] as const) {
        const res = await register(owner, agentId, arn);
        expect(res.status, arn).toBe(400);
        expect(res.body.error).toMatchObject({
          code: 'validation_error',
          details: [{ path: 'arn', message: expect.stringContaining(message) }],
        });
      }
      expect((await invoke('listDestinations', { caller: owner, params: { id: agentId } })).body.data).toEqual([]);
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

describe("an SQS destination's rate_limit", () => {
  it('is shown, and caps what is sent to it: at most one attempt a second, the rest waiting their turn, every one sent once', async () => {
    const agentId = await createAgent(owner);
    const queue = await customerQueue('throttled');
    const created = await invoke('createDestination', {
      caller: owner,
      params: { id: agentId },
      body: { arn: queue.arn, events: ['contract.funded'], rate_limit: 1 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.rate_limit).toBe(1);
    const destinationId = created.body.id as string;
    const { code } = JSON.parse((await nextMessage(queue.url)).body);
    const verified = await invoke('verifyDestination', {
      caller: owner,
      params: { id: agentId, destination_id: destinationId },
      body: { code },
    });
    expect(verified.body).toMatchObject({ status: 'ENABLED', rate_limit: 1 });
    for (let i = 0; i < 3; i++)
      expect((await invoke('sendTestEvent', { caller: owner, params: { id: agentId } })).status).toBe(202);
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) ids.add(JSON.parse((await nextMessage(queue.url)).body).id);
    expect(ids.size).toBe(3);
    const mine = (await invoke('listDeliveries', { caller: owner, params: { id: agentId } })).body.data.filter(
      (d: { destination_id: string | null }) => d.destination_id === destinationId,
    );
    expect(mine.map((d: { status: string; attempts: number }) => [d.status, d.attempts])).toEqual([
      ['succeeded', 1],
      ['succeeded', 1],
      ['succeeded', 1],
    ]);
    // Three attempts at one a second take three one-second windows: the first and the last are more
    // than a second apart (sent at once, they would start within milliseconds of each other).
    const started = await Promise.all(
      mine.map(async (d: { id: string }) => {
        const detail = await invoke('getDelivery', { caller: owner, params: { id: agentId, delivery_id: d.id } });
        return Date.parse(detail.body.attempts[0].started_at);
      }),
    );
    expect(Math.max(...started) - Math.min(...started)).toBeGreaterThan(1000);
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
    // The bus owner applies the policy the service gave them, and asks for a new message: not within
    // the minute of the first (refused) one, then (a clock a minute and the skew bound on).
    bus.addBus(busArn, created.body.policy);
    const tooSoon = await invoke('verifyDestination', { caller: owner, params, body: { code: 'none-yet' } });
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.body.error.message).toContain('could not be sent');
    const minuteOn = Date.now() + DESTINATIONS.verificationIntervalMs + MAX_CLOCK_SKEW_MS;
    await expect(verifyDestination(owner, agentId, destinationId, 'none-yet', minuteOn)).rejects.toMatchObject({
      code: 'verification_code_expired',
      message: expect.stringContaining('A new verification message is on its way'),
    });
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
    // Without the code (it never reached any bus) the intruder cannot enable it, nor have the next
    // message sent within the minute.
    const guess = await invoke('verifyDestination', {
      caller: intruder,
      params: { id: intruderAgent, destination_id: theirs.body.id },
      body: { code: code },
    });
    expect(guess.status).toBe(429);
    expect(guess.body.error.code).toBe('rate_limited');
    expect(bus.entries.get(busArn)).toHaveLength(1);

    // The owner's own events still arrive, signed in the detail, the causing trace beside the signature.
    const contractId = await createContract(owner, agentId, templateId);
    const funded = await invoke('fundContract', {
      caller: owner,
      params: { id: contractId },
      headers: { traceparent: CALLER_TRACE },
    });
    expect(funded.status).toBe(200);
    const put = await waitFor(() => bus.entries.get(busArn)?.[1], 'the event on the bus');
    expect(put.DetailType).toBe('contract.funded');
    const eventDetail = JSON.parse(put.Detail);
    const event = await verifyWebhook({ rawBody: eventDetail.body, headers: eventDetail.headers, secret });
    expect(event).toMatchObject({ type: 'contract.funded', data: { contract_id: contractId } });
    const span = parseTraceparent(eventDetail.headers.traceparent)!;
    expect(span).toMatchObject({ traceId: CALLER_TRACE_ID, flags: '01' });
    expect(span.parentId).not.toBe(CALLER_SPAN_ID);
    expect(eventDetail.headers.tracestate).toBeUndefined();
  });
});

describe('verification messages', () => {
  /** The asks stored for a destination: each is one request item, and the worker sends once per ask. */
  const asksOf = async (agentId: string, destinationId: string): Promise<number[]> => {
    const { Items = [] } = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: {
          ':pk': destinationKeys.agentPk(agentId),
          ':prefix': `DESTVERIFY#${destinationId}#`,
        },
        ConsistentRead: true,
      }),
    );
    return Items.map((item) => item['requested_at'] as number).sort();
  };
  const sendsTo = (busArn: string) => bus.refused.filter((line) => line.includes(busArn)).length;

  it('go at most one a minute per destination whatever became of the last, under 20 concurrent calls and skewed clocks; the worker sends once per ask', async () => {
    // A bus that does not exist: every message is refused, so the last outcome is always a failure.
    const busArn = `arn:aws:events:us-east-1:210987654321:event-bus/limited-${Date.now()}`;
    const agentId = await createAgent(owner);
    const created = await register(owner, agentId, busArn);
    expect(created.status).toBe(201);
    const destinationId = created.body.id as string;
    const params = { id: agentId, destination_id: destinationId };
    await waitFor(async () => {
      const res = await invoke('getDestination', { caller: owner, params });
      return res.body.verification.last_error ?? undefined;
    }, 'the first verification message refused');
    const [registered] = await asksOf(agentId, destinationId);
    expect(registered).toBeTypeOf('number');

    // 20 calls at once within the minute of the first (failed) message: 20 × 429, no message.
    const soon = await Promise.all(
      Array.from({ length: 20 }, () => invoke('verifyDestination', { caller: owner, params, body: { code: 'x' } })),
    );
    for (const res of soon) {
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('rate_limited');
      expect(res.body.error.message).toContain('could not be sent');
      const wait = Number(res.headers['retry-after']);
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual((DESTINATIONS.verificationIntervalMs + MAX_CLOCK_SKEW_MS) / 1000);
    }
    expect(await asksOf(agentId, destinationId)).toEqual([registered]);

    // Later, 20 instances at once: exactly one asks, 19 are told to wait. (Two days later: the pipeline
    // stores each message's code before the bus refuses it, and a code 24 h old has expired, so every
    // call below asks whatever the pipeline is doing meanwhile.)
    const next = registered! + 2 * 24 * 3600_000;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => verifyDestination(owner, agentId, destinationId, 'x', next)),
    );
    const codes = outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code: string }).code : 'ok'));
    expect(codes.filter((c) => c === 'verification_code_expired')).toHaveLength(1);
    expect(codes.filter((c) => c === 'rate_limited')).toHaveLength(19);
    const waited = outcomes.flatMap((o) =>
      o.status === 'rejected' && (o.reason as { code: string }).code === 'rate_limited'
        ? [(o.reason as { retryAfterSeconds: number }).retryAfterSeconds]
        : [],
    );
    expect(new Set(waited)).toEqual(new Set([(DESTINATIONS.verificationIntervalMs + MAX_CLOCK_SKEW_MS) / 1000]));
    expect(await asksOf(agentId, destinationId)).toEqual([registered, next]);

    // Skewed clocks: an instance whose clock reads up to the skew bound ahead of the one that asked
    // still sees the minute as running (1 ms short of it and the bound: refused, 1 s to wait); at
    // the minute and the bound, it asks.
    const justShort = next + DESTINATIONS.verificationIntervalMs + MAX_CLOCK_SKEW_MS - 1;
    await expect(verifyDestination(owner, agentId, destinationId, 'x', justShort)).rejects.toMatchObject({
      code: 'rate_limited',
      retryAfterSeconds: 1,
    });
    const third = justShort + 1;
    await expect(verifyDestination(owner, agentId, destinationId, 'x', third)).rejects.toMatchObject({
      code: 'verification_code_expired',
    });
    // An ask stamped by a clock far beyond the bound (an hour ahead) blocks nobody for an hour.
    const broken = third + 3_600_000;
    await expect(verifyDestination(owner, agentId, destinationId, 'x', broken)).rejects.toMatchObject({
      code: 'verification_code_expired',
    });
    const fourth = third + DESTINATIONS.verificationIntervalMs + MAX_CLOCK_SKEW_MS;
    await expect(verifyDestination(owner, agentId, destinationId, 'x', fourth)).rejects.toMatchObject({
      code: 'verification_code_expired',
    });
    expect(await asksOf(agentId, destinationId)).toEqual([registered, next, third, fourth, broken]);

    // The pipeline makes at most one message per ask, and none for an ask a later one replaced
    // before the worker reached it: the latest ask's message is sent.
    const latest = await waitFor(async () => {
      const d = await readDestination(agentId, destinationId);
      return d?.verification_sent_for === fourth && d.code_hash === undefined ? d : undefined;
    }, "the latest ask's message sent and refused by the bus");
    expect(latest.verification_error).toContain('ResourceNotFoundException');
    const sent = sendsTo(busArn);
    expect(sent).toBeGreaterThanOrEqual(2); // the first and the latest ask's
    expect(sent).toBeLessThanOrEqual(5); // one per ask at most

    // The queue hands the latest ask's message out again, and an older ask's arrives late: nothing more is sent.
    const again = (requestedAt: number, n: number) => ({
      messageId: `dup-${n}`,
      receiptHandle: `r-${n}`,
      body: JSON.stringify({
        agent_id: agentId,
        destination_id: destinationId,
        verify: true,
        requested_at: requestedAt,
      }),
    });
    const unread = await runAsWorker('deliverToDestinations', () =>
      deliverDestinationBatch([again(fourth, 1), again(fourth, 2), again(next, 3), again(registered!, 4)]),
    );
    expect(unread).toEqual([]);
    expect(sendsTo(busArn)).toBe(sent);
  });
});

describe('registrations', () => {
  it(`are ${DESTINATION_REGISTRATION_LIMITS.perWindow} per account per window, so a create-and-delete loop cannot send a verification message per two requests; a refused or capped request takes none`, async () => {
    const user = await createTestUser();
    const agentId = await createAgent(user);
    const arn = (n: number) => `arn:aws:events:us-east-1:210987654321:event-bus/loop-${n}`;
    // Refused before the window: a bad ARN (400) and another account's agent (404).
    expect((await register(user, agentId, 'arn:aws:sqs:us-fake-9:111122223333:q')).status).toBe(400);
    expect((await register(await createTestUser(), agentId, arn(0))).status).toBe(404);
    const made: string[] = [];
    for (let i = 0; i < DESTINATIONS.maxPerAgent; i++) {
      const res = await register(user, agentId, arn(i));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      made.push(res.body.id);
    }
    // At the per-agent cap: 409 before the window is touched.
    expect((await register(user, agentId, arn(99))).body.error.code).toBe('limit_exceeded');
    let n = DESTINATIONS.maxPerAgent;
    while (n < DESTINATION_REGISTRATION_LIMITS.perWindow) {
      const gone = made.shift()!;
      expect(
        (await invoke('deleteDestination', { caller: user, params: { id: agentId, destination_id: gone } })).status,
      ).toBe(204);
      const res = await register(user, agentId, arn(n++));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      made.push(res.body.id);
    }
    const gone = made.shift()!;
    expect(
      (await invoke('deleteDestination', { caller: user, params: { id: agentId, destination_id: gone } })).status,
    ).toBe(204);
    const refused = await register(user, agentId, arn(n));
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toContain(
      `${DESTINATION_REGISTRATION_LIMITS.perWindow} destinations per 60 minutes`,
    );
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(
      DESTINATION_REGISTRATION_LIMITS.windowMs / 1000 - 120,
    );
    // Another account is not held back.
    const other = await createTestUser();
    expect((await register(other, await createAgent(other), arn(0))).status).toBe(201);
  }, 60_000);
});

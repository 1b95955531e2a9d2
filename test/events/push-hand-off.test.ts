import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PUSH } from '../../lib/core/settings.ts';
import { claimSlot } from '../../lib/events/push/store.ts';
import { handOffToPush } from '../../lib/events/push-hand-off.ts';
import { workerGrants } from '../../lib/routes.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { type PushWorker, startPushWorker } from '../../local/emulators/push-worker.ts';
import { GrantViolation, runGranted } from '../../local/lambda/grants.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { createAgent, createContract, feedOf, publishTemplate, SIMPLE_SCHEMA, waitFor } from './support.ts';

/**
 * The relay's hand-off to the push worker on the local runtime: the same signed Invoke it sends to
 * Lambda, to the local Invoke API (local/emulators/async-invoke.ts), under the relay's grant; the
 * worker's failed runs retried and then kept, as its asynchronous invoke config keeps them in AWS.
 */
let alice: TestUser;
let templateId: string;
let worker: PushWorker | undefined;
beforeAll(async () => {
  alice = await createTestUser();
  templateId = await publishTemplate(alice, SIMPLE_SCHEMA);
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
});

/** An agent with one event, and that event's stream INSERT record as the relay gets it. */
async function agentWithRecord(): Promise<{ agentId: string; record: Parameters<typeof handOffToPush>[0][number] }> {
  const agentId = await createAgent(alice);
  await invoke('fundContract', { caller: alice, params: { id: await createContract(alice, agentId, templateId) } });
  const [event] = await feedOf(alice, agentId);
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.event(agentId, event.id) }));
  return {
    agentId,
    record: { eventName: 'INSERT', dynamodb: { NewImage: marshall(Item!), SequenceNumber: '000000000000000000007' } },
  };
}

describe("the relay's hand-off to the push worker", () => {
  it("needs the relay's lambda:InvokeFunction: without it the grant guard refuses the Invoke before it is sent", async () => {
    worker = await startPushWorker({ connectionsEndpoint: 'http://127.0.0.1:9' });
    const { record } = await agentWithRecord();
    expect(await runGranted('relay', workerGrants.relay, () => handOffToPush([record]))).toEqual([]);
    const { invokes: _, ...withoutInvoke } = workerGrants.relay;
    await expect(runGranted('relay', withoutInvoke, () => handOffToPush([record]))).rejects.toThrow(
      /lambda:InvokeFunction/,
    );
    await expect(runGranted('relay', withoutInvoke, () => handOffToPush([record]))).rejects.toThrow(GrantViolation);
  });

  it('runs a failing push again, then keeps it for the failure queue: which agents, after how many attempts', async () => {
    // @connections that refuses every connection: each post fails after the transport's retries.
    worker = await startPushWorker({ connectionsEndpoint: 'http://127.0.0.1:9', retryDelaysMs: [20] });
    const { agentId, record } = await agentWithRecord();
    const claimed = await claimSlot(
      agentId,
      0,
      { connectionId: `c-${agentId}`, keyHash: alice.usageKey!, cursor: undefined },
      Date.now(),
    );
    expect(claimed).toBe(true);
    // Lambda took the invocation (202): the relay has nothing to report.
    expect(await handOffToPush([record])).toEqual([]);
    await waitFor(() => worker!.failures.length > 0 || undefined, 'the failed run kept', 60_000);
    expect(worker.failures).toHaveLength(1);
    expect(worker.failures[0]).toMatchObject({
      functionName: worker.functionName,
      attempts: 1 + PUSH.handOffRetryAttempts,
      event: { agents: [{ agent_id: agentId }] },
    });
  });

  it("refuses what Lambda's Invoke API refuses: no signature, an unknown function, a payload over the budget", async () => {
    worker = await startPushWorker({ connectionsEndpoint: 'http://127.0.0.1:9' });
    const url = (name: string) => `${worker!.invokeEndpoint}/2015-03-31/functions/${name}/invocations`;
    const signed = { authorization: 'AWS4-HMAC-SHA256 Credential=local/test', 'x-amz-invocation-type': 'Event' };
    const unsigned = await fetch(url(worker.functionName), { method: 'POST', body: '{}' });
    expect(unsigned.status).toBe(403);
    const unknown = await fetch(url('another'), { method: 'POST', headers: signed, body: '{}' });
    expect([unknown.status, unknown.headers.get('x-amzn-errortype')]).toEqual([404, 'ResourceNotFoundException']);
    const tooLarge = await fetch(url(worker.functionName), {
      method: 'POST',
      headers: signed,
      body: JSON.stringify({ agents: [], pad: 'x'.repeat(PUSH.handOffMaxBytes) }),
    });
    expect([tooLarge.status, tooLarge.headers.get('x-amzn-errortype')]).toEqual([
      413,
      'RequestEntityTooLargeException',
    ]);
    const taken = await fetch(url(worker.functionName), { method: 'POST', headers: signed, body: '{"agents":[]}' });
    expect(taken.status).toBe(202);
    await worker.settled();
    expect(worker.failures).toEqual([]);
  });
});

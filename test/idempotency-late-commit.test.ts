import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { MiddlewareStack } from '@smithy/types';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeyHash } from '../lib/http/idempotency.ts';
import { claimKey } from '../lib/idempotency/store.ts';
import { withCallDeadline } from '../lib/store/call-deadline.ts';
import { db, tableName } from '../lib/store/client.ts';
import * as keys from '../lib/store/key-builders.ts';
import { createAgent, createContract, feedOf, publishTemplate, SIMPLE_SCHEMA } from './events/support.ts';
import { createTestUser, invoke, type TestUser } from './support/lambda.ts';

/**
 * docs/api.md, "Idempotency": a change that committed is never reported as failed, and a retry
 * under the same key answers it instead of running again. Under load a DynamoDB call's reply can
 * be lost after DynamoDB committed (the socket times out, the function's deadline cuts it off).
 * That cannot be produced on demand against DynamoDB Local, so a middleware on the real client
 * lets the TransactWriteItems reach DynamoDB Local and commit, then throws the timeout the SDK
 * would have thrown in place of the reply. Everything else is real: the routes, the table, the
 * idempotency records.
 */
let owner: TestUser;
let agentId: string;
let templateId: string;

beforeAll(async () => {
  owner = await createTestUser();
  agentId = await createAgent(owner);
  templateId = await publishTemplate(owner, SIMPLE_SCHEMA);
});

type Stack = MiddlewareStack<object, object>;
const stack = () => db().middlewareStack as unknown as Stack;
const LOSE_REPLY = 'test-lose-transaction-reply';
afterEach(() => {
  stack().remove(LOSE_REPLY);
});

/**
 * The next TransactWriteItems commits, then its reply is lost; `before` runs just before it is
 * sent. Returns a probe: whether the reply was indeed lost.
 */
function loseNextTransactionReply(before?: () => Promise<void>): () => boolean {
  let armed = true;
  stack().add(
    (next, context) => async (args) => {
      const mine = armed && /TransactWrite/.test((context as { commandName?: string }).commandName ?? '');
      if (!mine) return next(args);
      armed = false;
      await before?.();
      await next(args);
      throw Object.assign(new Error('socket timed out before the reply'), { name: 'TimeoutError', code: 'ETIMEDOUT' });
    },
    { step: 'initialize', name: LOSE_REPLY },
  );
  return () => !armed;
}

const withKey = (key: string) => ({ 'Content-Type': 'application/json', 'Idempotency-Key': key });
const fund = (contractId: string, key: string) =>
  invoke('fundContract', { caller: owner, params: { id: contractId }, headers: withKey(key) });
const create = (key: string) =>
  invoke('createContract', {
    caller: owner,
    body: { template_id: templateId, variables: {}, amount_cents: 100, agent_id: agentId },
    headers: withKey(key),
  });
const contractsCreated = async () =>
  (await invoke('getTemplate', { caller: owner, params: { id: templateId } })).body.stats.contracts_created as number;
const fundedEventsOf = async (contractId: string) =>
  (await feedOf(owner, agentId)).filter((e) => e.type === 'contract.funded' && e.data.contract_id === contractId);

describe('a commit whose reply was lost', () => {
  it('a transition: answered 200 with the contract, and the retry under the same key gets the same answer (not 409)', async () => {
    const contractId = await createContract(owner, agentId, templateId);
    const key = randomUUID();
    const lost = loseNextTransactionReply();
    const first = await fund(contractId, key);
    expect(lost()).toBe(true);
    const retry = await fund(contractId, key);
    expect({ first: first.status, retry: retry.status, events: (await fundedEventsOf(contractId)).length }).toEqual({
      first: 200,
      retry: 200,
      events: 1,
    });
    expect(first.body).toMatchObject({ id: contractId, status: 'FUNDED' });
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotency-replayed']).toBe('true');
  });

  it('a contract create: the retry under the same key answers 201 with the same contract, and one contract exists', async () => {
    const before = await contractsCreated();
    const key = randomUUID();
    const lost = loseNextTransactionReply();
    const first = await create(key);
    expect(lost()).toBe(true);
    const retry = await create(key);
    expect({ first: first.status, retry: retry.status, created: (await contractsCreated()) - before }).toEqual({
      first: 201,
      retry: 201,
      created: 1,
    });
    expect({ body: retry.body, location: retry.headers['location'] }).toEqual({
      body: first.body,
      location: first.headers['location'],
    });
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.contract(first.body.id), ConsistentRead: true }),
    );
    expect(Item?.['status']).toBe('CREATED');
  });

  it('an agent create and a template publish: the retry answers 201 with the same one, and one was made', async () => {
    const agentsOf = async () =>
      (await invoke('listAgents', { caller: owner, query: { limit: '100' } })).body.data.length as number;
    const agentsBefore = await agentsOf();
    const slug = `late-${randomUUID().slice(0, 8)}`;
    const requests = {
      agent: () => invoke('createAgent', { caller: owner, body: { name: 'late' }, headers: withKey(agentKey) }),
      template: () =>
        invoke('publishTemplate', {
          caller: owner,
          body: { name: 'Late', slug, category: 'http', version: '1.0.0', schema: SIMPLE_SCHEMA },
          headers: withKey(templateKey),
        }),
    };
    const agentKey = randomUUID();
    const templateKey = randomUUID();
    for (const send of Object.values(requests)) {
      const lost = loseNextTransactionReply();
      const first = await send();
      expect(lost()).toBe(true);
      stack().remove(LOSE_REPLY);
      const retry = await send();
      expect({
        first: first.status,
        retry: retry.status,
        sameBody: JSON.stringify(retry.body) === JSON.stringify(first.body),
      }).toEqual({ first: 201, retry: 201, sameBody: true });
    }
    expect((await agentsOf()) - agentsBefore).toBe(1);
  });

  it('a request whose key a retry took over (its lock ran out) commits nothing: the late transaction fails as a whole', async () => {
    const contractId = await createContract(owner, agentId, templateId);
    const key = randomUUID();
    // What a retry does once the first request's lock has run out: claim the key with its own token.
    const takeOver = async () => {
      const far = Date.now() + 3_600_000;
      expect(
        await claimKey(
          {
            userId: owner.userId,
            keyHash: idempotencyKeyHash(key),
            fingerprint: 'the retry',
            lockedUntil: far + 60_000,
            token: randomUUID(),
          },
          far,
        ),
      ).toBe(true);
    };
    loseNextTransactionReply(takeOver);
    const late = await fund(contractId, key);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('idempotency_key_in_use');
    expect((await invoke('getContract', { caller: owner, params: { id: contractId } })).body.status).toBe('CREATED');
    expect(await fundedEventsOf(contractId)).toEqual([]);
  });
});

describe('store calls bounded by the time left', () => {
  it('a call made after the deadline is not sent and not retried; outside a deadline calls run as before', async () => {
    const read = () => db().send(new GetCommand({ TableName: tableName(), Key: keys.contract('ctr_none') }));
    let sent = 0;
    stack().add(
      (next) => async (args) => {
        sent++;
        return next(args);
      },
      {
        step: 'finalizeRequest',
        priority: 'low',
        name: LOSE_REPLY,
      },
    );
    await expect(withCallDeadline(Date.now() - 1, read)).rejects.toMatchObject({ name: 'AbortError' });
    expect(sent).toBe(1);
    await expect(withCallDeadline(Date.now() + 60_000, read)).resolves.toMatchObject({
      $metadata: { httpStatusCode: 200 },
    });
    await expect(read()).resolves.toMatchObject({ $metadata: { httpStatusCode: 200 } });
  });
});

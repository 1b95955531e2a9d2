import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeyHash, requestFingerprint } from '../lib/http/idempotency.ts';
import { claimKey, readKey } from '../lib/idempotency/store.ts';
import { db, tableName } from '../lib/store/client.ts';
import * as keys from '../lib/store/key-builders.ts';
import { createAgent, publishTemplate, SIMPLE_SCHEMA } from './events/support.ts';
import { createTestUser, invoke, type TestUser } from './support/lambda.ts';

let owner: TestUser;
let agentId: string;
let templateId: string;

beforeAll(async () => {
  owner = await createTestUser();
  agentId = await createAgent(owner);
  templateId = await publishTemplate(owner, SIMPLE_SCHEMA);
});

const contractBody = (amount = 100) => ({
  template_id: templateId,
  variables: {},
  amount_cents: amount,
  agent_id: agentId,
});
const create = (key: string | undefined, body: unknown = contractBody(), caller: TestUser = owner) =>
  invoke('createContract', {
    caller,
    body,
    headers: { 'Content-Type': 'application/json', ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
  });
const contractsCreated = async () =>
  (await invoke('getTemplate', { caller: owner, params: { id: templateId } })).body.stats.contracts_created as number;

describe('Idempotency-Key on POST', () => {
  it('replays the first answer for the same key and body, and creates one contract', async () => {
    const before = await contractsCreated();
    const key = randomUUID();
    const first = await create(key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotency-replayed']).toBeUndefined();
    const again = await create(key);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['location']).toBe(first.headers['location']);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(await contractsCreated()).toBe(before + 1);
  });

  it('creates one contract for 12 concurrent twins, all answered with it', async () => {
    const before = await contractsCreated();
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 12 }, () => create(key)));
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotency-replayed'] === 'true')).toHaveLength(11);
    expect(await contractsCreated()).toBe(before + 1);
  });

  it('answers 422 idempotency_key_reused for the same key with another body or on another route', async () => {
    const key = randomUUID();
    expect((await create(key, contractBody(100))).status).toBe(201);
    const otherBody = await create(key, contractBody(200));
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.error.code).toBe('idempotency_key_reused');
    const otherRoute = await invoke('createAgent', {
      caller: owner,
      body: { name: 'x' },
      headers: { 'idempotency-key': key },
    });
    expect(otherRoute.status).toBe(422);
    expect(otherRoute.body.error.code).toBe('idempotency_key_reused');
  });

  it('tells apart the same route on two different ids (path parameters are part of the request)', async () => {
    const [a, b] = [await create(undefined), await create(undefined)];
    const key = randomUUID();
    const fundA = await invoke('fundContract', {
      caller: owner,
      params: { id: a.body.id },
      headers: { 'Idempotency-Key': key },
    });
    expect(fundA.status).toBe(200);
    const fundB = await invoke('fundContract', {
      caller: owner,
      params: { id: b.body.id },
      headers: { 'Idempotency-Key': key },
    });
    expect(fundB.status).toBe(422);
    // A replayed move is the first answer, not a second transition (which would be 409).
    const fundAAgain = await invoke('fundContract', {
      caller: owner,
      params: { id: a.body.id },
      headers: { 'Idempotency-Key': key },
    });
    expect(fundAAgain.status).toBe(200);
    expect(fundAAgain.body).toEqual(fundA.body);
  });

  it('keeps keys per account: another user may use the same key', async () => {
    const key = randomUUID();
    const other = await createTestUser();
    const otherAgent = await createAgent(other);
    expect((await create(key)).status).toBe(201);
    const theirs = await create(key, { ...contractBody(), agent_id: otherAgent }, other);
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotency-replayed']).toBeUndefined();
  });

  it('replays a client error too (the same request gets the same answer)', async () => {
    const key = randomUUID();
    const body = { ...contractBody(), template_id: randomUUID() };
    const first = await create(key, body);
    expect(first.status).toBe(404);
    const again = await create(key, body);
    expect(again.status).toBe(404);
    expect(again.headers['idempotency-replayed']).toBe('true');
  });

  it('refuses a key that is empty, too long or not printable ASCII with a 400', async () => {
    for (const key of ['', 'x'.repeat(256), 'clé', 'a b']) {
      const res = await create(key);
      expect(res.status, JSON.stringify(key)).toBe(400);
      expect(res.body.error.details[0].path).toBe('Idempotency-Key');
    }
  });

  it('works without a key as before (two POSTs, two contracts)', async () => {
    const [a, b] = [await create(undefined), await create(undefined)];
    expect(a.body.id).not.toBe(b.body.id);
  });

  it('keeps the record in the table with a TTL of 24 hours', async () => {
    const key = randomUUID();
    const started = Math.floor(Date.now() / 1000);
    await create(key);
    const record = await readKey(owner.userId, idempotencyKeyHash(key));
    expect(record?.state).toBe('completed');
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.idempotency(owner.userId, idempotencyKeyHash(key)) }),
    );
    expect(Item?.['expires_at']).toBeGreaterThanOrEqual(started + 24 * 3600);
    expect(JSON.stringify(Item)).not.toContain(key);
  });

  it('answers 409 idempotency_key_in_use when the first request still runs after the wait, and lets a crashed claim be taken over', async () => {
    const key = randomUUID();
    const body = JSON.stringify(contractBody());
    const fingerprint = requestFingerprint({ method: 'POST', path: '/api/v1/contracts []', rawBody: body });
    // A claim held by a request that is still running (its lock runs for a minute).
    expect(
      await claimKey({
        userId: owner.userId,
        keyHash: idempotencyKeyHash(key),
        fingerprint,
        lockedUntil: Date.now() + 60_000,
        token: 'other',
      }),
    ).toBe(true);
    const busy = await create(key, body);
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('idempotency_key_in_use');
    // A claim whose function died (its lock ran out) is taken over by the next request.
    const crashedKey = randomUUID();
    expect(
      await claimKey({
        userId: owner.userId,
        keyHash: idempotencyKeyHash(crashedKey),
        fingerprint,
        lockedUntil: Date.now() - 1,
        token: 'dead',
      }),
    ).toBe(true);
    const after = await create(crashedKey, body);
    expect(after.status).toBe(201);
  }, 20_000);
});

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { AppError } from '../../lib/core/errors.ts';
import { newId } from '../../lib/core/ids.ts';
import { ACCOUNT_HANDSHAKE_LIMITS, MAX_CLOCK_SKEW_MS, VERIFY_LIMITS } from '../../lib/core/settings.ts';
import { takeAccountHandshakeSlot } from '../../lib/limits/account-handshake-limit.ts';
import { startHandshake } from '../../lib/limits/verify-limit.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { useDevelopmentModeSwitch } from '../agents/env.ts';
import { echoChallenge, type Respond, startReceiver } from '../net/receiver.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';

/**
 * POST …/webhook/verify is one outbound POST per call: per agent, one handshake in flight and
 * VERIFY_LIMITS.perWindow per window, held in DynamoDB Local by conditional writes.
 */
const setDevelopmentMode = useDevelopmentModeSwitch();

async function agentWithReceiver(respond: Respond, ownerOf?: TestUser) {
  setDevelopmentMode(true);
  const receiver = await startReceiver(respond);
  const owner = ownerOf ?? (await createTestUser());
  const { body: agent } = await invoke('createAgent', { caller: owner, body: { name: 'bot' } });
  const configured = await invoke('configureWebhook', {
    caller: owner,
    params: { id: agent.id },
    body: { webhook_url: receiver.url, events: ['contract.funded'] },
  });
  expect(configured.status).toBe(200);
  return {
    receiver,
    agentId: agent.id as string,
    verify: () => invoke('verifyWebhook', { caller: owner, params: { id: agent.id } }),
  };
}

const slowEcho =
  (ms: number): Respond =>
  async (req, res) => {
    await new Promise((r) => setTimeout(r, ms));
    echoChallenge(req, res);
  };

function expectRateLimited(res: { status: number; headers: Record<string, string>; body: any }, maxSeconds: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
}

/** A clock `offsetMs` away from a simulated real time the test moves by hand. */
function simulatedTime(startMs = Date.UTC(2030, 0, 1)) {
  let real = startMs;
  return {
    advance: (ms: number): void => {
      real += ms;
    },
    real: () => real,
    clock:
      (offsetMs = 0) =>
      () =>
        real + offsetMs,
  };
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: AppError) => err,
  );

describe('verify limit through the handler', () => {
  it('lets exactly one of many parallel verifications of an agent reach the endpoint; the rest get 429 with Retry-After', async () => {
    const { receiver, verify } = await agentWithReceiver(slowEcho(400));
    const results = await Promise.all(Array.from({ length: 12 }, verify));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 200)) expectRateLimited(res, 1);
    expect(receiver.requests).toHaveLength(1);
    // Released on completion: the next one goes through at once.
    expect((await verify()).status).toBe(200);
    expect(receiver.requests).toHaveLength(2);
  });

  it(`allows ${VERIFY_LIMITS.perWindow} handshakes per window, then 429 with the wait until the window ends`, async () => {
    const { receiver, verify } = await agentWithReceiver(echoChallenge);
    for (let i = 0; i < VERIFY_LIMITS.perWindow; i++) expect((await verify()).status).toBe(200);
    const refused = await verify();
    expectRateLimited(refused, VERIFY_LIMITS.windowMs / 1000);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(VERIFY_LIMITS.windowMs / 1000 - 30);
    expect(receiver.requests).toHaveLength(VERIFY_LIMITS.perWindow);
  });

  it('counts failed handshakes too (each was a POST), but not refusals that never left the service', async () => {
    const { receiver, verify } = await agentWithReceiver((_req, res) => void res.writeHead(500).end());
    for (let i = 0; i < VERIFY_LIMITS.perWindow; i++) expect((await verify()).status).toBe(422);
    expectRateLimited(await verify(), VERIFY_LIMITS.windowMs / 1000);
    expectRateLimited(await verify(), VERIFY_LIMITS.windowMs / 1000);
    expect(receiver.requests).toHaveLength(VERIFY_LIMITS.perWindow);
  });

  it('keeps agents apart: one agent at its limit does not hold back another', async () => {
    const first = await agentWithReceiver(echoChallenge);
    const second = await agentWithReceiver(echoChallenge);
    for (let i = 0; i < VERIFY_LIMITS.perWindow; i++) await first.verify();
    expect((await first.verify()).status).toBe(429);
    expect((await second.verify()).status).toBe(200);
  });
});

describe('verify limit per account', () => {
  it(`allows ${ACCOUNT_HANDSHAKE_LIMITS.perWindow} handshakes per window over all of an account's agents (a new agent is no way around it); a refusal frees the agent's lease and sends nothing`, async () => {
    const owner = await createTestUser();
    const first = await agentWithReceiver(echoChallenge, owner);
    // The account's other handshakes of the hour, through the same limiter the route takes.
    for (let i = 0; i < ACCOUNT_HANDSHAKE_LIMITS.perWindow - 1; i++) await takeAccountHandshakeSlot(owner.userId);
    expect((await first.verify()).status).toBe(200);
    const fresh = await agentWithReceiver(echoChallenge, owner);
    const refused = await fresh.verify();
    expectRateLimited(refused, ACCOUNT_HANDSHAKE_LIMITS.windowMs / 1000);
    expect(refused.body.error.message).toContain('over all its agents');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(ACCOUNT_HANDSHAKE_LIMITS.windowMs / 1000 - 120);
    expect(fresh.receiver.requests).toHaveLength(0);
    // The agent's lease was given back: nothing of it stays held.
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.verifyLimit(fresh.agentId), ConsistentRead: true }),
    );
    expect(Item?.['lease_until']).toBeUndefined();
    // Another account is not held back.
    expect((await (await agentWithReceiver(echoChallenge)).verify()).status).toBe(200);
  });
});

describe('verify limiter across instances and clocks', () => {
  it('opens the next window when the last one is over', async () => {
    const time = simulatedTime();
    const agentId = newId('agt');
    for (let i = 0; i < VERIFY_LIMITS.perWindow; i++)
      await (await startHandshake(agentId, { now: time.clock() })).release();
    time.advance(VERIFY_LIMITS.windowMs - 1000);
    const err = await refusal(startHandshake(agentId, { now: time.clock() }));
    expect(err).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 1 });
    time.advance(1000);
    await expect(startHandshake(agentId, { now: time.clock() })).resolves.toBeDefined();
  });

  it('lets a crashed handshake (never released) hold the agent for one lease only', async () => {
    const time = simulatedTime();
    const agentId = newId('agt');
    await startHandshake(agentId, { now: time.clock() }); // its function dies: no release
    time.advance(VERIFY_LIMITS.leaseMs - 1);
    expect(await refusal(startHandshake(agentId, { now: time.clock() }))).toMatchObject({ code: 'rate_limited' });
    time.advance(1);
    await expect(startHandshake(agentId, { now: time.clock() })).resolves.toBeDefined();
  });

  it('lets exactly one of 30 racing instances with clocks up to the skew bound apart start a handshake', async () => {
    const time = simulatedTime();
    const agentId = newId('agt');
    const offsets = [-MAX_CLOCK_SKEW_MS / 2, 0, MAX_CLOCK_SKEW_MS / 2];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => startHandshake(agentId, { now: time.clock(offsets[i % 3]) })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'rate_limited' });
  });

  it(`never starts more than ${VERIFY_LIMITS.perWindow} handshakes in any (window − skew bound) of real time, with skewed instances calling every second`, async () => {
    const time = simulatedTime();
    const agentId = newId('agt');
    const instances = [-MAX_CLOCK_SKEW_MS / 2, 0, MAX_CLOCK_SKEW_MS / 2].map((offset) => time.clock(offset));
    const started: number[] = [];
    for (let second = 0; second < 130; second++) {
      for (const now of instances) {
        const lease = await startHandshake(agentId, { now }).catch(() => undefined);
        if (lease) {
          started.push(time.real());
          await lease.release();
        }
      }
      time.advance(1000);
    }
    const span = VERIFY_LIMITS.windowMs - MAX_CLOCK_SKEW_MS;
    for (const start of started)
      expect(started.filter((s) => s >= start && s < start + span).length).toBeLessThanOrEqual(VERIFY_LIMITS.perWindow);
    // And it is a limit, not a lockout: 130 s hold two full windows and part of a third.
    expect(started.length).toBeGreaterThanOrEqual(VERIFY_LIMITS.perWindow * 2);
  });

  it('is not locked out by an instance whose clock is far beyond the bound (an hour ahead)', async () => {
    const time = simulatedTime();
    const agentId = newId('agt');
    const broken = time.clock(3_600_000);
    // It fills the window and keeps the last handshake's lease, all stamped an hour ahead.
    for (let i = 0; i < VERIFY_LIMITS.perWindow - 1; i++)
      await (await startHandshake(agentId, { now: broken })).release();
    await startHandshake(agentId, { now: broken });
    expect(await refusal(startHandshake(agentId, { now: broken }))).toMatchObject({ code: 'rate_limited' });
    await expect(startHandshake(agentId, { now: time.clock() })).resolves.toBeDefined();
  });
});

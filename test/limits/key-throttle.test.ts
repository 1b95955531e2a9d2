import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_LIMITS, KEYLESS_ROUTE_LIMITS } from '../../lib/core/settings.ts';
import { THROTTLED_MESSAGE } from '../../lib/http/errors.ts';
import { createLocalApi, type LocalApi, listen } from '../../local/gateway/api-gateway.ts';
import { createKeyThrottle } from '../../local/gateway/key-throttle.ts';
import { createTestUser, type TestUser } from '../support/lambda.ts';

/** The usage plan's per-key limits in the local runtime: a token bucket and a daily quota per key. */
describe('key throttle (the bucket itself, on an injected clock)', () => {
  const limits = { ratePerSecond: 4, burst: 10, dailyQuota: 25 };
  const start = Date.UTC(2030, 0, 1, 23, 59, 50); // 10 s before midnight UTC

  it('lets a burst through, then one request per 1/rate seconds, with the wait as Retry-After', () => {
    let t = start - 3_600_000;
    const throttle = createKeyThrottle(limits, () => t);
    for (let i = 0; i < limits.burst; i++) expect(throttle.take('k')).toEqual({ ok: true });
    expect(throttle.take('k')).toEqual({ ok: false, reason: 'rate', retryAfterSeconds: 1 });
    t += 1000;
    for (let i = 0; i < limits.ratePerSecond; i++) expect(throttle.take('k')).toEqual({ ok: true });
    expect(throttle.take('k')).toMatchObject({ ok: false, reason: 'rate' });
    // Another key has its own bucket.
    expect(throttle.take('other')).toEqual({ ok: true });
    // Refill stops at the burst size, however long the key was idle.
    t += 3_600_000;
    let passed = 0;
    while (throttle.take('k').ok) passed++;
    expect(passed).toBe(limits.burst);
  });

  it('refuses a key over its daily quota until 00:00 UTC, telling how long that is; refused requests use no quota', () => {
    let t = start - 60_000;
    const throttle = createKeyThrottle(limits, () => t);
    let accepted = 0;
    for (let i = 0; i < 200; i++) {
      if (throttle.take('k').ok) accepted++;
      t += 100; // 10 per second: faster than the rate, so some are refused on the way
    }
    expect(accepted).toBe(limits.dailyQuota);
    t = start;
    expect(throttle.take('k')).toEqual({ ok: false, reason: 'quota', retryAfterSeconds: 10 });
    t = start + 10_000; // the next UTC day
    expect(throttle.take('k')).toEqual({ ok: true });
  });
});

describe('key throttle in the local API Gateway', () => {
  // The gateway's clock stands still unless the test moves it, so the counts are exact however
  // slowly this machine serves the requests (the authorizer reads DynamoDB Local on every one).
  let t = Date.UTC(2030, 5, 1, 12);
  let gateway: LocalApi;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    gateway = await listen(createLocalApi(undefined, { now: () => t }), 0);
    [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
  });
  afterAll(() => gateway.close());

  const get = (user: TestUser, path = '/api/v1/agents') =>
    fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${user.apiKey}` } });

  it(`lets exactly the burst (${API_KEY_LIMITS.burst}) of many parallel requests of one key through, then ${API_KEY_LIMITS.ratePerSecond} per second; the rest get 429 rate_limited with Retry-After`, async () => {
    const responses = await Promise.all(Array.from({ length: API_KEY_LIMITS.burst * 3 }, () => get(alice)));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(API_KEY_LIMITS.burst);
    const limited = responses.filter((r) => r.status !== 200);
    expect(limited).toHaveLength(API_KEY_LIMITS.burst * 2);
    for (const res of limited) {
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(await res.json()).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
    }

    t += 1000; // Retry-After later, the bucket holds one second's refill
    const next = await Promise.all(Array.from({ length: API_KEY_LIMITS.ratePerSecond * 2 }, () => get(alice)));
    expect(next.filter((r) => r.status === 200)).toHaveLength(API_KEY_LIMITS.ratePerSecond);
    expect(next.filter((r) => r.status === 429)).toHaveLength(API_KEY_LIMITS.ratePerSecond);
  });

  it('limits each key on its own', async () => {
    expect((await get(alice)).status).toBe(429);
    expect((await get(bob)).status).toBe(200);
  });

  it(`gives each route without a key one bucket for all its callers (the stage's method throttle: ${KEYLESS_ROUTE_LIMITS.burst}, then ${KEYLESS_ROUTE_LIMITS.ratePerSecond} per second), apart from the keys' and from the other keyless routes`, async () => {
    // The JWKS of an agent without keys (a 404 is a served request too), 300 anonymous requests at once.
    const jwks = `${gateway.url}/api/v1/webhook-keys/agt_01KAKQ8A1B2C3D4E5F6G7H8J9K`;
    const crowd = await Promise.all(Array.from({ length: 300 }, () => fetch(jwks)));
    expect(crowd.filter((r) => r.status === 404)).toHaveLength(KEYLESS_ROUTE_LIMITS.burst);
    const limited = crowd.filter((r) => r.status !== 404);
    expect(limited).toHaveLength(300 - KEYLESS_ROUTE_LIMITS.burst);
    for (const res of limited) {
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({ error: { code: 'rate_limited', message: THROTTLED_MESSAGE } });
    }
    // Another keyless route, and a key's routes, are not held back by that crowd.
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    expect((await get(bob)).status).toBe(200);
    t += 1000;
    const next = await Promise.all(Array.from({ length: KEYLESS_ROUTE_LIMITS.ratePerSecond * 2 }, () => fetch(jwks)));
    expect(next.filter((r) => r.status === 404)).toHaveLength(KEYLESS_ROUTE_LIMITS.ratePerSecond);
    expect(next.filter((r) => r.status === 429)).toHaveLength(KEYLESS_ROUTE_LIMITS.ratePerSecond);
  });
});

describe('daily quota in the local API Gateway', () => {
  let gateway: LocalApi;
  let t = Date.UTC(2030, 5, 1, 12); // noon UTC: the quota resets in 12 h
  beforeAll(async () => {
    gateway = await listen(
      createLocalApi(undefined, { keyLimits: { ...API_KEY_LIMITS, dailyQuota: 3 }, now: () => t }),
      0,
    );
  });
  afterAll(() => gateway.close());

  it('answers 429 with the seconds until 00:00 UTC once the quota is used', async () => {
    const carol = await createTestUser();
    const get = () => fetch(`${gateway.url}/api/v1/agents`, { headers: { authorization: `Bearer ${carol.apiKey}` } });
    for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);
    const refused = await get();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe(String(12 * 3600));
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    t += 12 * 3600 * 1000;
    expect((await get()).status).toBe(200);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { DELIVERY, FUTURE_TOLERANCE_MS, MAX_CLOCK_SKEW_MS } from '../../lib/core/settings.ts';
import { POST_SLOT_LEASE_MS, slotsLeasedUntil } from '../../lib/events/delivery/endpoint-slots.ts';
import { holdSeconds } from '../../lib/events/delivery/hold.ts';
import { parseDeliveryMessage } from '../../lib/events/delivery/queue.ts';
import { delayAfter, retryDelays, scheduledAttempts } from '../../lib/events/delivery/retry-schedule.ts';

const DEFAULT_RETRY_DELAYS_SECONDS = DELIVERY.retryDelaysSeconds;
const MAX_DELAY_SECONDS = DELIVERY.maxDelaySeconds;

afterEach(() => {
  delete process.env['DELIVERY_RETRY_DELAYS_SECONDS'];
});

describe('delivery retry schedule', () => {
  it('by default: at least 8 attempts over at least 24 h, first retry within a minute, each wait within one SQS visibility', () => {
    const delays = DEFAULT_RETRY_DELAYS_SECONDS;
    expect(delays[0]).toBe(0);
    expect(delays.length).toBeGreaterThanOrEqual(8);
    expect(delays[1]).toBeGreaterThan(0);
    expect(delays[1]).toBeLessThanOrEqual(60);
    expect(delays.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * 3600);
    for (const d of delays) expect(d).toBeLessThanOrEqual(MAX_DELAY_SECONDS);
    // Growing delays.
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]!);
    expect(retryDelays()).toBe(DEFAULT_RETRY_DELAYS_SECONDS);
  });

  it('delayAfter(n) is the wait after n failed attempts, undefined once spent', () => {
    expect(delayAfter(1)).toBe(30);
    expect(delayAfter(scheduledAttempts() - 1)).toBe(DEFAULT_RETRY_DELAYS_SECONDS.at(-1));
    expect(delayAfter(scheduledAttempts())).toBeUndefined();
  });

  it('DELIVERY_RETRY_DELAYS_SECONDS overrides it, and a malformed value is refused loudly', () => {
    process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0, 1,2';
    expect(retryDelays()).toEqual([0, 1, 2]);
    expect(scheduledAttempts()).toBe(3);
    for (const bad of ['0,x', '0,-1', '0,1.5', '0,50000']) {
      process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = bad;
      expect(() => retryDelays()).toThrow(/DELIVERY_RETRY_DELAYS_SECONDS/);
    }
  });
});

describe('holds without an attempt (hold.ts)', () => {
  const low = () => 0;
  const high = () => 0.999_999;

  it('double with each hold from holdBaseSeconds, stop at holdMaxSeconds, and never end before the circuit’s time', () => {
    expect(holdSeconds({ atLeast: 0 }, undefined, low)).toBe(DELIVERY.holdBaseSeconds);
    expect(holdSeconds({ atLeast: 0 }, 1, low)).toBe(2 * DELIVERY.holdBaseSeconds);
    expect(holdSeconds({ atLeast: 0 }, 3, low)).toBe(8 * DELIVERY.holdBaseSeconds);
    expect(holdSeconds({ atLeast: 0 }, 64, low)).toBe(DELIVERY.holdMaxSeconds);
    // An open circuit's time left wins over a shorter backoff, and a longer backoff over it.
    expect(holdSeconds({ atLeast: 1800 }, 0, low)).toBe(1800);
    expect(holdSeconds({ atLeast: 3 }, 2, low)).toBe(4 * DELIVERY.holdBaseSeconds);
  });

  it('end by `atMost` (the POST slots waited for lapse by then), however long the backoff has grown', () => {
    expect(holdSeconds({ atLeast: 0, atMost: 20 }, 0, low)).toBe(DELIVERY.holdBaseSeconds);
    expect(holdSeconds({ atLeast: 0, atMost: 20 }, 5, high)).toBe(20);
    expect(holdSeconds({ atLeast: 0, atMost: 2.2 }, 5, high)).toBe(3);
    expect(holdSeconds({ atLeast: 0, atMost: 0 }, 5, high)).toBe(1);
  });

  it('spread by up to half again, so a backlog held until one circuit time comes back over a span', () => {
    expect(holdSeconds({ atLeast: 100 }, 0, high)).toBe(150);
    const spread = new Set(Array.from({ length: 200 }, () => holdSeconds({ atLeast: 100 })));
    expect(Math.min(...spread)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...spread)).toBeLessThanOrEqual(150);
    expect(spread.size).toBeGreaterThan(20);
  });

  it('are counted on the message, read strictly', () => {
    const base = { agent_id: 'agt_0123456789', delivery_id: 'dlv_0123456789', event_id: 'evt_0123456789' };
    expect(parseDeliveryMessage(JSON.stringify({ ...base, waits: 3 }))).toEqual({ ...base, waits: 3 });
    for (const waits of [0, -1, 1.5, 65, '2', null])
      expect(parseDeliveryMessage(JSON.stringify({ ...base, waits }))).toBeUndefined();
  });
});

describe('POST slot leases (endpoint-slots.ts)', () => {
  const now = 1_800_000_000_000;
  const leased = (...leases: unknown[]) =>
    slotsLeasedUntil({ id: 'agt_x', ...Object.fromEntries(leases.map((l, i) => [`post_slot_${i}`, l])) }, now);

  it('hold every message only while every slot is leased, until the earliest lease ends', () => {
    expect(DELIVERY.endpointInFlight).toBe(2);
    expect(leased(now + 3000, now + 9000)).toBe(now + 3000);
    expect(leased(now + 3000)).toBeUndefined();
    expect(leased(now + 3000, now - 1)).toBeUndefined();
    expect(leased(now + 3000, 'x')).toBeUndefined();
  });

  it('last the function’s timeout and the clock bound; one stamped further ahead than a clock in bound could (a broken clock) counts as lapsed', () => {
    expect(POST_SLOT_LEASE_MS).toBe(DELIVERY.functionTimeoutSeconds * 1000 + MAX_CLOCK_SKEW_MS);
    const furthest = now + POST_SLOT_LEASE_MS + FUTURE_TOLERANCE_MS;
    expect(leased(furthest, furthest)).toBe(furthest);
    expect(leased(furthest + 1, furthest)).toBeUndefined();
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientCache } from '../../lib/destinations/client-cache.ts';

/**
 * The destination worker's clients (lib/destinations/client-cache.ts): one per (service, region,
 * account, session) while the session lives, so a customer's messages share a connection; a renewed
 * session or a full cache retires the old client, destroyed only after a grace for calls in flight.
 */
class FakeClient {
  destroyed = false;
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('clients kept per session', () => {
  it('reuses the client of a live session, makes a new one when the session has expired, and destroys the old one after the grace', () => {
    vi.useFakeTimers();
    const cache = new ClientCache<FakeClient>(10);
    const now = 1_000_000;
    const first = cache.get('eu-west-1 acct ASIA1', now + 60_000, () => new FakeClient('first'), now);
    expect(cache.get('eu-west-1 acct ASIA1', now + 60_000, () => new FakeClient('second'), now + 1_000)).toBe(first);
    const renewed = cache.get('eu-west-1 acct ASIA1', now + 120_000, () => new FakeClient('renewed'), now + 60_000);
    expect(renewed.name).toBe('renewed');
    expect(first.destroyed).toBe(false);
    vi.advanceTimersByTime(30_000);
    expect(first.destroyed).toBe(true);
    expect(renewed.destroyed).toBe(false);
  });

  it('keeps at most `capacity` clients, retiring the least recently used', () => {
    vi.useFakeTimers();
    const cache = new ClientCache<FakeClient>(2);
    const a = cache.get('a', Infinity, () => new FakeClient('a'));
    const b = cache.get('b', Infinity, () => new FakeClient('b'));
    cache.get('a', Infinity, () => new FakeClient('a2'));
    const c = cache.get('c', Infinity, () => new FakeClient('c'));
    expect(cache.size).toBe(2);
    vi.advanceTimersByTime(30_000);
    expect([a.destroyed, b.destroyed, c.destroyed]).toEqual([false, true, false]);
    expect(cache.get('a', Infinity, () => new FakeClient('a3'))).toBe(a);
  });
});

/**
 * Concurrent server-sent-event streams per agent, exact across function instances: an agent has
 * MAX_STREAMS_PER_AGENT slot items (`keys.streamLease`), and a stream runs only while it holds one.
 * A slot is taken by one conditional write (free, or its lease lapsed), renewed on a timer while
 * the stream runs (conditional on the holder's token) and deleted when the stream ends. A stream
 * whose function crashed stops renewing, so its slot frees itself after `STREAM_LEASE.leaseMs`. A lease
 * lives at most `STREAM_LEASE.lifetimeMs` from its start, whatever the function does: renewals stop
 * and the stream is told to end, so a function that runs on after its client left (Lambda does not
 * say) frees the slot on time.
 *
 * Clocks: a holder counts its lease as lost FUTURE_TOLERANCE_MS (the skew bound and the write's
 * own delay) before it lapses by its own clock, and renews long before that, so an instance whose
 * clock is ahead within the bound can never take a slot whose stream is still running. A lease
 * further in the future than any in-bound clock could have written counts as lapsed, so a broken
 * clock cannot block an agent's streams.
 */
import { randomUUID } from 'node:crypto';
import { rateLimited } from '../core/errors.ts';
import { FUTURE_TOLERANCE_MS, MAX_STREAMS_PER_AGENT, STREAM_LEASE } from '../core/settings.ts';
import { shuffled } from '../core/shuffled.ts';
import { log } from '../observability/log.ts';
import { freeStreamSlot, renewStreamSlot, takeStreamSlot } from './store.ts';

export interface StreamSink {
  write(chunk: string): void;
  closed(): boolean;
  drained?(): Promise<void>;
}

export interface StreamLease {
  /** The sink, closed as soon as the lease is lost (the stream must end then). */
  guard(sink: StreamSink): StreamSink;
  /** Stops renewing and frees the slot; never throws. */
  release(): Promise<void>;
}

export interface StreamLeaseOptions {
  /** This instance's clock (ms since the epoch); tests inject skewed ones. */
  now?: () => number;
  /** How often the lease is renewed; tests shorten it. */
  renewMs?: number;
  /** How long a lease may live from its start; tests shorten it. */
  lifetimeMs?: number;
}

export async function acquireStreamLease(agentId: string, options: StreamLeaseOptions = {}): Promise<StreamLease> {
  const now = options.now ?? Date.now;
  const token = randomUUID();
  const t = now();
  let soonestLapse = Infinity;
  // Slots in random order, so racing streams spread over the slots instead of all fighting for slot 0.
  for (const slot of shuffled(MAX_STREAMS_PER_AGENT)) {
    const taken = await takeSlot(agentId, slot, token, t);
    if (taken === true)
      return holding(agentId, slot, token, t, now, {
        renewMs: options.renewMs ?? STREAM_LEASE.renewMs,
        lifetimeMs: options.lifetimeMs ?? STREAM_LEASE.lifetimeMs,
      });
    if (taken !== undefined) soonestLapse = Math.min(soonestLapse, taken);
  }
  const waitMs = Number.isFinite(soonestLapse) ? soonestLapse - t : STREAM_LEASE.renewMs;
  throw rateLimited(
    `An agent may have at most ${MAX_STREAMS_PER_AGENT} event streams open at once; close one, or try again later.`,
    Math.min(Math.max(waitMs, 1000), STREAM_LEASE.leaseMs) / 1000,
  );
}

/** True when the slot is ours; else when its current lease lapses (ms), if known. */
async function takeSlot(agentId: string, slot: number, token: string, t: number): Promise<true | number | undefined> {
  const result = await takeStreamSlot(agentId, slot, token, t);
  if (result.ok) return true;
  const until = result.current?.['lease_until'];
  return typeof until === 'number' ? until : undefined;
}

function holding(
  agentId: string,
  slot: number,
  token: string,
  takenAt: number,
  now: () => number,
  { renewMs, lifetimeMs }: { renewMs: number; lifetimeMs: number },
): StreamLease {
  let until = takenAt + STREAM_LEASE.leaseMs;
  const endsAt = takenAt + lifetimeMs;
  let lost = false;
  let released = false;
  const held = () => !lost && !released && now() < Math.min(until - FUTURE_TOLERANCE_MS, endsAt);

  const renew = async () => {
    const t = now();
    // Past its lifetime the lease is left to lapse: the stream was told to end (held() is false).
    if (t >= endsAt) {
      clearInterval(timer);
      return;
    }
    try {
      const result = await renewStreamSlot(agentId, slot, token, t);
      // Taken over (our lease had lapsed): the stream must end.
      if (result.ok) until = t + STREAM_LEASE.leaseMs;
      else lost = true;
    } catch (err) {
      // Retried on the next tick; if renewals keep failing, `held()` turns false before the lease lapses.
      log.warn('stream lease not renewed', { agentId, error: (err as Error).name });
    }
  };
  let renewing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = renewing.then(renew);
  }, renewMs);
  timer.unref();

  return {
    guard: (sink) => ({
      write: (chunk) => sink.write(chunk),
      closed: () => sink.closed() || !held(),
      ...(sink.drained ? { drained: () => sink.drained!() } : {}),
    }),
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await renewing;
      // Someone else holds it now (condition failed), or the store is unavailable: the lease lapses by itself.
      await freeStreamSlot(agentId, slot, token).catch((err: Error) =>
        log.warn('stream lease not released', { agentId, error: err.name }),
      );
    },
  };
}

import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lib/core/ids.ts';
import { MAX_CLOCK_SKEW_MS, MAX_STREAMS_PER_AGENT, STREAM_LEASE } from '../../lib/core/settings.ts';
import { acquireStreamLease, type StreamLease } from '../../lib/limits/stream-leases.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { createAgent } from '../events/support.ts';
import { createTestUser, type TestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';

/** Concurrent SSE streams per agent: slot leases in DynamoDB Local, through the real streaming route. */
const api = useLocalApi();
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
let alice: TestUser;

beforeAll(async () => {
  alice = await createTestUser();
});

async function openStream(agentId: string) {
  const controller = new AbortController();
  const res = await fetch(`${api.url}/api/v1/agents/${agentId}/events/stream`, {
    headers: { authorization: `Bearer ${alice.apiKey}` },
    signal: controller.signal,
  });
  if (res.status !== 200) return { res, body: await res.json(), close: async () => undefined };
  // Read the first frame so the stream is known to run, then keep it open until closed.
  const reader = res.body!.getReader();
  await reader.read();
  return {
    res,
    body: undefined,
    close: async () => {
      controller.abort();
      await reader.closed.catch(() => undefined);
    },
  };
}

/** Until the server has seen the disconnect and released the lease (it notices within its poll). */
async function eventually<T>(attempt: () => Promise<T | undefined>, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Lease items present in the table for the agent: closed streams delete theirs. */
async function heldSlots(agentId: string): Promise<number> {
  const items = await Promise.all(
    Array.from({ length: MAX_STREAMS_PER_AGENT }, (_, slot) =>
      db().send(new GetCommand({ TableName: tableName(), Key: keys.streamLease(agentId, slot), ConsistentRead: true })),
    ),
  );
  return items.filter((r) => r.Item).length;
}

const settled = (leases: PromiseSettledResult<StreamLease>[]) =>
  leases.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));

describe(`SSE streams per agent (cap ${MAX_STREAMS_PER_AGENT})`, () => {
  it('opens exactly the cap of many parallel streams; the rest get 429 rate_limited with Retry-After; a closed stream frees its slot', async () => {
    const agentId = await createAgent(alice);
    const streams = await Promise.all(Array.from({ length: MAX_STREAMS_PER_AGENT + 7 }, () => openStream(agentId)));
    const open = streams.filter((s) => s.res.status === 200);
    const refused = streams.filter((s) => s.res.status !== 200);
    expect(open).toHaveLength(MAX_STREAMS_PER_AGENT);
    expect(refused).toHaveLength(7);
    for (const s of refused) {
      expect(s.res.status).toBe(429);
      expect(s.body).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
      const retryAfter = Number(s.res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(STREAM_LEASE.leaseMs / 1000);
    }

    await open[0]!.close();
    const replacement = await eventually(async () => {
      const s = await openStream(agentId);
      return s.res.status === 200 ? s : undefined;
    }, 'a free slot');
    expect((await openStream(agentId)).res.status).toBe(429);

    await Promise.all([...open.slice(1), replacement].map((s) => s.close()));
    await eventually(async () => ((await heldSlots(agentId)) === 0 ? true : undefined), 'every lease released');
    const reopened = await Promise.all(Array.from({ length: MAX_STREAMS_PER_AGENT }, () => openStream(agentId)));
    expect(reopened.map((s) => s.res.status)).toEqual(Array(MAX_STREAMS_PER_AGENT).fill(200));
    await Promise.all(reopened.map((s) => s.close()));
  });

  it("counts per agent: one agent's full slots do not refuse another agent's stream", async () => {
    const [busy, quiet] = [await createAgent(alice), await createAgent(alice)];
    const streams = await Promise.all(Array.from({ length: MAX_STREAMS_PER_AGENT }, () => openStream(busy)));
    expect(streams.every((s) => s.res.status === 200)).toBe(true);
    expect((await openStream(busy)).res.status).toBe(429);
    const other = await openStream(quiet);
    expect(other.res.status).toBe(200);
    await Promise.all([...streams, other].map((s) => s.close()));
  });

  it('lets exactly the cap of 30 racing instances with clocks up to the skew bound apart take a lease', async () => {
    const agentId = newId('agt');
    const offsets = [-MAX_CLOCK_SKEW_MS / 2, 0, MAX_CLOCK_SKEW_MS / 2];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => acquireStreamLease(agentId, { now: () => Date.now() + offsets[i % 3]! })),
    );
    const held = settled(outcomes);
    expect(held).toHaveLength(MAX_STREAMS_PER_AGENT);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'rate_limited' });
    await Promise.all(held.map((l) => l.release()));
  });

  it('frees the slots of a crashed streaming process (SIGKILL, never released) once their leases lapse, not before', async () => {
    const agentId = newId('agt');
    // Node runs the TypeScript itself, in one process, so SIGKILL ends the holder itself.
    const child = spawn(process.execPath, [join(root, 'test/limits/hold-stream-leases.ts')], {
      env: { ...process.env, AGENT_ID: agentId, COUNT: String(MAX_STREAMS_PER_AGENT) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve());
      child.on('exit', (code) => reject(new Error(`holder exited with ${code}`)));
    });
    const killedAt = Date.now();
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    // A moment later, and half a lease later, the crashed process's leases still count…
    await expect(acquireStreamLease(agentId)).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(acquireStreamLease(agentId, { now: () => killedAt + STREAM_LEASE.leaseMs / 2 })).rejects.toMatchObject(
      { code: 'rate_limited' },
    );
    // …and lapse after one lease: an instance whose clock reads past that takes a slot.
    const later = await acquireStreamLease(agentId, { now: () => killedAt + STREAM_LEASE.leaseMs + 1000 });
    await later.release();
  }, 60_000);

  it('keeps a running stream its slot by renewing, and ends a stream whose slot was taken after its lease lapsed', async () => {
    const agentId = newId('agt');
    let clock = Date.now();
    const now = () => clock;
    const leases = await Promise.all(
      Array.from({ length: MAX_STREAMS_PER_AGENT }, () => acquireStreamLease(agentId, { now, renewMs: 20 })),
    );
    const sinks = leases.map((l) => l.guard({ write: () => undefined, closed: () => false }));

    clock += STREAM_LEASE.leaseMs - 10_000;
    await new Promise((r) => setTimeout(r, 200)); // renewals run with the advanced clock
    clock += 20_000; // past the first lease's end, within the renewed one
    await expect(acquireStreamLease(agentId, { now })).rejects.toMatchObject({ code: 'rate_limited' });
    expect(sinks.every((s) => !s.closed())).toBe(true);

    // An instance whose clock is a whole lease ahead sees one lease lapsed and takes the slot;
    // that holder's next renewal fails and its stream is told to close.
    const intruder = await acquireStreamLease(agentId, { now: () => clock + STREAM_LEASE.leaseMs + 1000 });
    await eventually(
      async () => (sinks.filter((s) => s.closed()).length === 1 ? true : undefined),
      'the displaced stream to close',
    );
    await Promise.all([...leases, intruder].map((l) => l.release()));
  });

  it('ends a stream at its lifetime and lets its slot lapse, even when the function runs on after its client left and never releases', async () => {
    const agentId = newId('agt');
    let clock = Date.now();
    const now = () => clock;
    const leases = await Promise.all(
      Array.from({ length: MAX_STREAMS_PER_AGENT }, () =>
        acquireStreamLease(agentId, { now, renewMs: 20, lifetimeMs: STREAM_LEASE.lifetimeMs }),
      ),
    );
    // The client left; Lambda does not say so: the sink never reports itself closed.
    const sinks = leases.map((l) => l.guard({ write: () => undefined, closed: () => false }));
    clock += STREAM_LEASE.lifetimeMs - 1000;
    await new Promise((r) => setTimeout(r, 200)); // still renewed, still open
    expect(sinks.some((s) => s.closed())).toBe(false);
    await expect(acquireStreamLease(agentId, { now })).rejects.toMatchObject({ code: 'rate_limited' });

    clock += 1000; // its lifetime is up: the stream is told to end, and renewals stop
    expect(sinks.every((s) => s.closed())).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    // Nobody released (the function is still running): the slots lapse one lease after the last renewal.
    clock += STREAM_LEASE.leaseMs + 1000;
    const next = await acquireStreamLease(agentId, { now });
    await next.release();
    await Promise.all(leases.map((l) => l.release()));
  }, 60_000);
});

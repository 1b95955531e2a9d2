import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DELIVERY } from '../../lib/core/settings.ts';
import { POST_SLOT_LEASE_MS } from '../../lib/events/delivery/endpoint-slots.ts';
import { freePort } from '../../local/ports.ts';
import { apiCall } from '../support/api-call.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { startWebhookReceiver, waitFor } from './support.ts';

/**
 * docs/events.md, "After a crash": `kill -9` of the whole local runtime while every delivery is
 * in flight (the receiver holds the requests), then a restart on the same data folder. Every
 * acknowledged event reaches the receiver within the queue's visibility timeout of the restart
 * (25 s; it was 180 s), and an event is posted again only if its first POST never got an answer.
 */
const root = join(import.meta.dirname, '..', '..');
const running: ChildProcess[] = [];

function startRuntime(env: Record<string, string>): { child: ChildProcess; ready: Promise<string> } {
  // Its own process group, so the kill takes DynamoDB Local with it, as a machine crash would.
  const child = spawn(process.execPath, [join(root, 'local/start.ts')], {
    cwd: root,
    detached: true,
    env: { ...process.env, LOG_LEVEL: 'silent', DYNAMODB_ENDPOINT: '', TABLE_NAME: '', ...env },
  });
  running.push(child);
  let output = '';
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      const key = /Demo API key\s+(mk_\S+)/.exec(output)?.[1];
      if (key && output.includes('Press Ctrl-C to stop.')) resolve(key);
    });
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (code) => reject(new Error(`runtime exited (${code}): ${output}`)));
  });
  return { child, ready };
}

const killGroup = (child: ChildProcess) => {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
};

afterEach(() => {
  for (const child of running.splice(0)) killGroup(child);
});

const call = apiCall;

/**
 * Two endpoints: a proven one (it answered its handshake in time, so its POSTs are not capped) has
 * every delivery in flight at the kill; one in doubt (a test event it left unanswered) has
 * DELIVERY.endpointInFlight POSTs in flight and the others held, and the leases on its POST slots
 * outlive the crash (lib/events/delivery/endpoint-slots.ts): held messages come back once they
 * lapse, within two leases of the restart.
 */
const CASES = [
  {
    endpoint: 'a proven endpoint',
    proven: true,
    inFlight: 3,
    // Every message comes back within the visibility timeout.
    within: 'the visibility timeout',
    withinMs: DELIVERY.visibilityTimeoutSeconds * 1000 + 5000,
  },
  {
    endpoint: 'an endpoint in doubt, capped',
    proven: false,
    inFlight: DELIVERY.endpointInFlight,
    // The crashed batch's leases lapse at most one lease after the restart, and a message held
    // for a slot meanwhile waits at most one lease more (lib/events/delivery/hold.ts).
    within: 'two POST slot leases',
    withinMs: 2 * POST_SLOT_LEASE_MS + 5000,
  },
];

describe('crash recovery of the delivery pipeline', () => {
  it.each(CASES)(
    'kill -9 while deliveries to $endpoint are in flight: after a restart every event arrives within $within, none posted twice unless its POST was cut off',
    async ({ proven, inFlight, withinMs }) => {
      const env = {
        PORT: String(await freePort()),
        LOCAL_DYNAMODB_PORT: String(await freePort()),
        DATA_DIR: scratchDir('crash-'),
      };
      const base = `http://127.0.0.1:${env.PORT}`;
      const receiver = await startWebhookReceiver();
      const held = new Set<string>();
      receiver.answer = (delivery) => {
        if (delivery.json.type === 'contract.funded') held.add(delivery.json.id);
        return new Promise<number>(() => undefined); // never answered: the crash comes first
      };

      const first = startRuntime(env);
      const key = await first.ready;
      const agent = await call(base, key, 'POST', '/api/v1/agents', { name: 'crash' });
      await call(base, key, 'PATCH', `/api/v1/agents/${agent.id}/webhook`, {
        webhook_url: receiver.url,
        events: ['contract.funded'],
      });
      await call(base, key, 'POST', `/api/v1/agents/${agent.id}/webhook/verify`);
      const atOnce = async () =>
        (await call(base, key, 'GET', `/api/v1/agents/${agent.id}`)).webhook_circuit.max_requests_at_once;
      expect(await atOnce()).toBeNull(); // proven by its handshake
      if (!proven) {
        // A test event it leaves unanswered puts it in doubt once open DELIVERY.slowPostMs.
        await call(base, key, 'POST', `/api/v1/agents/${agent.id}/webhook/test`);
        await waitFor(async () => (await atOnce()) ?? undefined, 'the endpoint in doubt', 20_000);
      }
      const template = await call(base, key, 'POST', '/v1/marketplace/templates', {
        name: 'Crash',
        slug: 'crash-test',
        category: 'other',
        version: '1.0.0',
        schema: { variables: [], checks: [] },
      });
      const contracts = await Promise.all(
        Array.from({ length: 8 }, () =>
          call(base, key, 'POST', '/api/v1/contracts', {
            template_id: template.id,
            variables: {},
            amount_cents: 100,
            agent_id: agent.id,
          }),
        ),
      );
      await Promise.all(contracts.map((c) => call(base, key, 'POST', `/api/v1/contracts/${c.id}/fund`)));
      const feed = (await call(base, key, 'GET', `/api/v1/agents/${agent.id}/events?limit=100`)).data
        .filter((e: { type: string }) => e.type === 'contract.funded')
        .map((e: { id: string }) => e.id);
      expect(feed).toHaveLength(8);
      await waitFor(() => held.size >= inFlight || undefined, 'deliveries in flight', 20_000);
      const exited = new Promise((resolve) => first.child.once('exit', resolve));
      killGroup(first.child);
      // Until the killed child is reaped its pid still answers, and the DATA_DIR lock would count it as running.
      await exited;
      const cutOff = new Set(held);

      receiver.answer = () => 200;
      const before = receiver.deliveries.length;
      const second = startRuntime(env);
      await second.ready;
      const answered = () => new Set(receiver.deliveries.slice(before).map((d) => d.json.id));
      await waitFor(
        () => feed.every((id: string) => answered().has(id)) || undefined,
        'every event after the restart',
        withinMs,
      );
      // A POST's answer reaches the receiver before the worker records it: wait for the records (a
      // busy machine can take seconds), then count the POSTs, which no later retry may add to.
      const statuses = async () =>
        (await call(base, key, 'GET', `/api/v1/agents/${agent.id}/deliveries?limit=100`)).data
          .filter((r: { event_type: string }) => r.event_type === 'contract.funded')
          .map((r: { status: string }) => r.status) as string[];
      await waitFor(
        async () => ((await statuses()).every((s) => s === 'succeeded') ? true : undefined),
        'every delivery recorded as succeeded',
        30_000,
      );

      const posts = new Map<string, number>();
      for (const d of receiver.deliveries) posts.set(d.json.id, (posts.get(d.json.id) ?? 0) + 1);
      for (const id of feed) expect(posts.get(id), id).toBe(cutOff.has(id) ? 2 : 1);
      expect(await statuses()).toEqual(Array(8).fill('succeeded'));
    },
    240_000,
  );
});

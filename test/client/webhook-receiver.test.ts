import { describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../../examples/webhook-receiver/receiver.ts';
import { signedPost, startReceiver } from './support/receiver-harness.ts';

const secret = 'whsec_receiver_test_secret';

function contractEvent(id: string): WebhookEvent {
  return {
    id,
    type: 'contract.funded',
    created_at: '2026-11-22T10:00:00.000Z',
    agent_id: 'agt_abcdefghijklmnopqrstu',
    data: { contract_id: 'ctr_abcdefghijklmnopqrstu', amount_cents: 500 },
  };
}

function deliveryHeaders(event: WebhookEvent): Record<string, string> {
  return { 'x-service-event': event.type, 'x-service-event-id': event.id };
}

describe('sample webhook receiver', async () => {
  const received: WebhookEvent[] = [];
  const url = await startReceiver({ secret, onEvent: (event) => void received.push(event) });

  it('accepts a correctly signed event and hands it to onEvent', async () => {
    const event = contractEvent('evt_good_signature_0000001');
    const res = await signedPost(url, JSON.stringify(event), { secret, headers: deliveryHeaders(event) });
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/json');
    expect(res.json).toEqual({ received: true });
    expect(received.filter((e) => e.id === event.id)).toEqual([event]);
  });

  it('refuses a signature made with another secret: 401 {"error": message}', async () => {
    const event = contractEvent('evt_wrong_secret_000000001');
    const res = await signedPost(url, JSON.stringify(event), {
      secret: 'whsec_someone_else',
      headers: deliveryHeaders(event),
    });
    expect(res.status).toBe(401);
    expect(res.contentType).toBe('application/json');
    expect(res.json).toEqual({ error: expect.stringMatching(/signature/i) });
    expect(received.some((e) => e.id === event.id)).toBe(false);
  });

  it('during a rotation overlap accepts a delivery whose x-service-signature is the new secret’s, as webhook-signature carries the old one too', async () => {
    const event = contractEvent('evt_rotation_overlap_000001');
    const res = await signedPost(url, JSON.stringify(event), {
      secret: ['whsec_the_new_secret_after_rotation', secret],
      headers: deliveryHeaders(event),
    });
    expect(res.status).toBe(200);
    expect(received.filter((e) => e.id === event.id)).toEqual([event]);
  });

  it('refuses a body changed after signing', async () => {
    const event = contractEvent('evt_tampered_body_00000001');
    const tampered = JSON.stringify({ ...event, data: { ...event.data, amount_cents: 1 } });
    const res = await signedPost(url, JSON.stringify(event), {
      secret,
      headers: deliveryHeaders(event),
      tamperedBody: tampered,
    });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: expect.any(String) });
  });

  it('refuses a request without signature headers', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(contractEvent('evt_unsigned_0000000000001')),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: expect.any(String) });
  });

  it('refuses a correctly signed request whose timestamp is more than 5 minutes off, either way', async () => {
    for (const skewSeconds of [-301, 301]) {
      const event = contractEvent(`evt_stale_${skewSeconds < 0 ? 'past' : 'future'}_0000000001`);
      const signedAt = new Date(Date.now() + skewSeconds * 1000);
      const res = await signedPost(url, JSON.stringify(event), { secret, signedAt, headers: deliveryHeaders(event) });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ error: expect.stringMatching(/timestamp/i) });
    }
    const withinSkew = contractEvent('evt_slightly_old_00000001');
    const ok = await signedPost(url, JSON.stringify(withinSkew), {
      secret,
      signedAt: new Date(Date.now() - 240_000),
      headers: deliveryHeaders(withinSkew),
    });
    expect(ok.status).toBe(200);
  });

  it('echoes the handshake challenge exactly, URL-unsafe and non-ASCII characters included', async () => {
    const challenge = 'a+b/c=d%2F%3D&x?y#z "quoted" \\ ü 😀 ';
    const body = JSON.stringify({
      type: 'service.webhook.verify',
      challenge,
      agent_id: 'agt_abcdefghijklmnopqrstu',
      timestamp: '2026-11-22T10:00:00.000Z',
    });
    const res = await signedPost(url, body, { secret, headers: { 'x-service-event': 'service.webhook.verify' } });
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/json');
    expect(res.text).toBe(JSON.stringify({ challenge }));
    expect(res.json.challenge).toBe(challenge);
  });

  it('refuses an unsigned handshake too', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-event': 'service.webhook.verify' },
      body: JSON.stringify({ type: 'service.webhook.verify', challenge: 'c' }),
    });
    expect(res.status).toBe(401);
  });

  it('hands a redelivered event id to onEvent only once, also when the copies arrive together', async () => {
    const event = contractEvent('evt_duplicate_00000000001');
    const first = await signedPost(url, JSON.stringify(event), { secret, headers: deliveryHeaders(event) });
    const again = await signedPost(url, JSON.stringify(event), { secret, headers: deliveryHeaders(event) });
    expect(first.json).toEqual({ received: true });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ received: true, duplicate: true });

    const burst = contractEvent('evt_duplicate_burst_00001');
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        signedPost(url, JSON.stringify(burst), { secret, headers: deliveryHeaders(burst) }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(received.filter((e) => e.id === event.id)).toHaveLength(1);
    expect(received.filter((e) => e.id === burst.id)).toHaveLength(1);
  });

  it('takes the event id from the body when the header is absent', async () => {
    const event = contractEvent('evt_id_from_body_00000001');
    const first = await signedPost(url, JSON.stringify(event), { secret });
    const again = await signedPost(url, JSON.stringify(event), { secret });
    expect([first.json, again.json]).toEqual([{ received: true }, { received: true, duplicate: true }]);
  });

  it('answers 400 to a signed body that is not a JSON object, and 405 to other methods', async () => {
    expect((await signedPost(url, '[1,2]', { secret })).status).toBe(400);
    expect((await signedPost(url, 'not json', { secret })).status).toBe(400);
    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect(await get.json()).toEqual({ error: expect.any(String) });
  });
});

describe('sample webhook receiver when onEvent fails or is slow', async () => {
  let failNext = true;
  const handled: string[] = [];
  const url = await startReceiver({
    secret: () => secret,
    handlerDeadlineMs: 200,
    onEvent: async (event) => {
      if (event.id.startsWith('evt_slow')) await new Promise((resolve) => setTimeout(resolve, 600));
      else if (failNext) {
        failNext = false;
        throw new Error('database is down');
      }
      handled.push(event.id);
    },
  });

  it('answers 500 without remembering the id, so the redelivery is processed', async () => {
    const event = contractEvent('evt_fails_once_0000000001');
    const first = await signedPost(url, JSON.stringify(event), { secret, headers: deliveryHeaders(event) });
    expect(first.status).toBe(500);
    expect(first.json).toEqual({ error: expect.any(String) });
    expect(first.text).not.toContain('database is down');
    const retry = await signedPost(url, JSON.stringify(event), { secret, headers: deliveryHeaders(event) });
    expect(retry.json).toEqual({ received: true });
    expect(handled).toContain(event.id);
  });

  it('answers 503 when onEvent outlasts the deadline, and treats the redelivery after it finished as a duplicate', async () => {
    const event = contractEvent('evt_slow_handler_00000001');
    const first = await signedPost(url, JSON.stringify(event), { secret, headers: deliveryHeaders(event) });
    expect(first.status).toBe(503);
    await expect.poll(() => handled.includes(event.id), { timeout: 5_000 }).toBe(true);
    const retry = await signedPost(url, JSON.stringify(event), { secret, headers: deliveryHeaders(event) });
    expect(retry.json).toEqual({ received: true, duplicate: true });
  });
});

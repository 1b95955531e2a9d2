import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../lib/agents/verify.ts';
import type { Resolver } from '../../lib/net/resolver.ts';
import { verifySignature } from '../../lib/webhooks/signature.ts';
import { closedPort, echoChallenge, json, type ReceivedRequest, type Respond, startReceiver } from '../net/receiver.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { useDevelopmentModeSwitch } from './env.ts';

// The test endpoints listen on 127.0.0.1, which only development mode allows (as under `npm start`).
const setDevelopmentMode = useDevelopmentModeSwitch();
const EVENTS = ['contract.funded'];

interface Setup {
  owner: TestUser;
  id: string;
  secret: string;
}

async function agentWithWebhook(webhook_url: string): Promise<Setup> {
  setDevelopmentMode(true);
  const owner = await createTestUser();
  const { body: agent } = await invoke('createAgent', { caller: owner, body: { name: 'bot' } });
  const { body, status } = await invoke('configureWebhook', {
    caller: owner,
    params: { id: agent.id },
    body: { webhook_url, events: EVENTS },
  });
  expect(status).toBe(200);
  return { owner, id: agent.id, secret: body.webhook_secret };
}

async function agentWithReceiver(respond: Respond) {
  const receiver = await startReceiver(respond);
  return { receiver, ...(await agentWithWebhook(receiver.url)) };
}

const verify = ({ owner, id }: Setup) => invoke('verifyWebhook', { caller: owner, params: { id } });
const statusOf = async ({ owner, id }: Setup) =>
  (await invoke('getAgent', { caller: owner, params: { id } })).body.webhook_status;
const challengeOf = (req: ReceivedRequest) => (JSON.parse(req.body) as { challenge: string }).challenge;

async function expectFailure(setup: Setup, code: string) {
  const res = await verify(setup);
  expect(res.status).toBe(422);
  expect(res.body.error).toEqual({ code, message: expect.any(String) });
  expect(await statusOf(setup)).toBe('PENDING_VERIFICATION');
  return res;
}

describe('POST /api/v1/agents/:id/webhook/verify', () => {
  it('sends the signed challenge of docs/api.md and enables the webhook on an exact echo', async () => {
    const setup = await agentWithReceiver(echoChallenge);
    const res = await verify(setup);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: setup.id,
      webhook_status: 'ENABLED',
      webhook_url: setup.receiver.url,
      events: EVENTS,
    });
    expect(await statusOf(setup)).toBe('ENABLED');

    const [req] = setup.receiver.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/webhook' });
    expect(req!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-event': 'service.webhook.verify',
    });
    expect(req!.headers['user-agent']).toBeTruthy();
    const body = JSON.parse(req!.body);
    expect(body).toEqual({
      type: 'service.webhook.verify',
      challenge: expect.any(String),
      agent_id: setup.id,
      timestamp: expect.any(String),
    });
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    expect(body.challenge).toMatch(/[+/=]/); // URL-unsafe characters, so re-encoding shows
    expect(Buffer.from(body.challenge, 'base64')).toHaveLength(32);
    const signed = {
      timestamp: req!.headers['x-service-timestamp'] as string,
      signature: req!.headers['x-service-signature'] as string,
    };
    expect(verifySignature(setup.secret, signed, req!.body)).toBe(true);
  });

  it('uses a fresh token every time, and can verify again once ENABLED (staying ENABLED)', async () => {
    const setup = await agentWithReceiver(echoChallenge);
    expect((await verify(setup)).status).toBe(200);
    expect((await verify(setup)).status).toBe(200);
    const [a, b] = setup.receiver.requests.map(challengeOf);
    expect(a).not.toBe(b);
    expect(await statusOf(setup)).toBe('ENABLED');
  });

  it('fails with challenge_mismatch for a modified token', async () => {
    const setup = await agentWithReceiver((req, res) => json(res, 200, { challenge: challengeOf(req).slice(1) }));
    await expectFailure(setup, 'challenge_mismatch');
  });

  it('fails with challenge_mismatch for a token echoed but re-encoded', async () => {
    const setup = await agentWithReceiver((req, res) =>
      json(res, 200, { challenge: encodeURIComponent(challengeOf(req)) }),
    );
    await expectFailure(setup, 'challenge_mismatch');
  });

  it('fails with challenge_mismatch when the reply has no challenge field', async () => {
    const setup = await agentWithReceiver((_req, res) => json(res, 200, { received: true }));
    await expectFailure(setup, 'challenge_mismatch');
  });

  it.each([500, 201, 204, 401])(
    'fails with endpoint_error when the endpoint answers %i, even with the right echo',
    async (status) => {
      const setup = await agentWithReceiver((req, res) => json(res, status, { challenge: challengeOf(req) }));
      await expectFailure(setup, 'endpoint_error');
    },
  );

  it('fails with endpoint_error for a reply that is not JSON', async () => {
    const setup = await agentWithReceiver((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(JSON.stringify({ challenge: challengeOf(req) }));
    });
    await expectFailure(setup, 'endpoint_error');
  });

  it('fails with endpoint_error for a JSON content type with a body that does not parse', async () => {
    const setup = await agentWithReceiver((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`challenge=${challengeOf(req)}`);
    });
    await expectFailure(setup, 'endpoint_error');
  });

  it('fails with verification_timeout after 10 s for an endpoint that answers after 12 s', {
    timeout: 20_000,
  }, async () => {
    const setup = await agentWithReceiver((req, res) => {
      setTimeout(() => res.writable && echoChallenge(req, res), 12_000).unref();
    });
    const started = performance.now();
    const res = await verify(setup);
    const seconds = (performance.now() - started) / 1000;
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('verification_timeout');
    expect(seconds).toBeGreaterThanOrEqual(10.0);
    expect(seconds).toBeLessThanOrEqual(10.9);
    expect(await statusOf(setup)).toBe('PENDING_VERIFICATION');
  });

  it('fails with endpoint_error when the connection is refused', async () => {
    const setup = await agentWithWebhook(`http://127.0.0.1:${await closedPort()}/webhook`);
    await expectFailure(setup, 'endpoint_error');
  });

  it('does not follow a redirect to a good endpoint', async () => {
    const good = await startReceiver(echoChallenge);
    const setup = await agentWithReceiver((_req, res) => {
      res.writeHead(308, { location: good.url });
      res.end();
    });
    const res = await expectFailure(setup, 'endpoint_error');
    expect(res.body.error.message).toMatch(/redirect/i);
    expect(good.requests).toHaveLength(0);
  });

  it('answers 409 webhook_not_configured while DISABLED (never configured, or after DELETE)', async () => {
    const owner = await createTestUser();
    const { body: agent } = await invoke('createAgent', { caller: owner, body: { name: 'bot' } });
    const fresh = await invoke('verifyWebhook', { caller: owner, params: { id: agent.id } });
    expect(fresh).toMatchObject({ status: 409, body: { error: { code: 'webhook_not_configured' } } });

    const setup = await agentWithReceiver(echoChallenge);
    await invoke('disableWebhook', { caller: setup.owner, params: { id: setup.id } });
    expect((await verify(setup)).body.error.code).toBe('webhook_not_configured');
    expect(setup.receiver.requests).toHaveLength(0);
  });

  it('refuses a stored loopback URL once development mode is off (url_validation_error, nothing sent)', async () => {
    const setup = await agentWithReceiver(echoChallenge);
    setDevelopmentMode(false);
    await expectFailure(setup, 'url_validation_error');
    expect(setup.receiver.requests).toHaveLength(0);
  });

  it('signs with the rotated secret after a rotation', async () => {
    const setup = await agentWithReceiver(echoChallenge);
    const { body } = await invoke('rotateWebhookSecret', { caller: setup.owner, params: { id: setup.id } });
    expect((await verify(setup)).status).toBe(200);
    const [req] = setup.receiver.requests;
    const signed = {
      timestamp: req!.headers['x-service-timestamp'] as string,
      signature: req!.headers['x-service-signature'] as string,
    };
    expect(verifySignature(body.webhook_secret, signed, req!.body)).toBe(true);
    expect(verifySignature(setup.secret, signed, req!.body)).toBe(false);
  });

  it('lets a PATCH made during the handshake win over the stale success', async () => {
    let setup: Setup | undefined;
    const receiver = await startReceiver(async (req, res) => {
      // The configuration changes while the endpoint is still answering the old one's challenge.
      const patched = await invoke('configureWebhook', {
        caller: setup!.owner,
        params: { id: setup!.id },
        body: { webhook_url: 'https://hooks.example.com/new', events: ['contract.released'] },
      });
      expect(patched.status).toBe(200);
      echoChallenge(req, res);
    });
    setup = await agentWithWebhook(receiver.url);
    const res = await verify(setup);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_transition');
    const { body: agent } = await invoke('getAgent', { caller: setup.owner, params: { id: setup.id } });
    expect(agent).toMatchObject({
      webhook_status: 'PENDING_VERIFICATION',
      webhook_url: 'https://hooks.example.com/new',
      events: ['contract.released'],
    });
  });

  it('goes back to PENDING_VERIFICATION when an ENABLED webhook is configured again', async () => {
    const setup = await agentWithReceiver(echoChallenge);
    expect((await verify(setup)).body.webhook_status).toBe('ENABLED');
    const res = await invoke('configureWebhook', {
      caller: setup.owner,
      params: { id: setup.id },
      body: { webhook_url: setup.receiver.url, events: EVENTS },
    });
    expect(res.body.webhook_status).toBe('PENDING_VERIFICATION');
  });
});

describe('verify and DNS (scripted resolver)', () => {
  const resolving = (...addresses: string[]): Resolver & { names: string[] } => {
    const names: string[] = [];
    return Object.assign(
      async (name: string) => {
        names.push(name);
        return addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
      },
      { names },
    );
  };

  it('refuses at connect time a name accepted at PATCH (no DNS there) that resolves to a private address', async () => {
    const setup = await agentWithWebhook('https://hooks.example.com/webhook');
    setDevelopmentMode(false);
    for (const address of ['10.0.0.7', '169.254.169.254', 'fd00:ec2::254']) {
      const resolver = resolving(address);
      await expect(verifyWebhook(setup.owner, setup.id, { resolver })).rejects.toMatchObject({
        code: 'url_validation_error',
      });
      expect(resolver.names).toEqual(['hooks.example.com']);
    }
    expect(await statusOf(setup)).toBe('PENDING_VERIFICATION');
  });

  it('connects to the address the resolver gave (development mode: localhost → 127.0.0.1)', async () => {
    const receiver = await startReceiver(echoChallenge);
    const setup = await agentWithWebhook(`http://localhost:${receiver.port}/webhook`);
    const resolver = resolving('127.0.0.1');
    const agent = await verifyWebhook(setup.owner, setup.id, { resolver, developmentMode: true });
    expect(agent.webhook_status).toBe('ENABLED');
    expect(resolver.names).toEqual(['localhost']);
    expect(receiver.requests).toHaveLength(1);
  });

  it('refuses a name whose answer mixes an allowed and a private address, in development mode too', async () => {
    const setup = await agentWithWebhook('https://hooks.example.com/webhook');
    const resolver = resolving('127.0.0.1', '192.168.10.10');
    await expect(verifyWebhook(setup.owner, setup.id, { resolver, developmentMode: true })).rejects.toMatchObject({
      code: 'url_validation_error',
    });
  });
});

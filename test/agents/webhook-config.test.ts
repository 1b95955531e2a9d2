import { describe, expect, it } from 'vitest';
import { SECRET_PATTERN } from '../../lib/webhooks/secret.ts';
import { ALLOWED_URLS, DEVELOPMENT_ONLY_URLS, FORBIDDEN_URLS } from '../net/forbidden-urls.ts';
import { writtenDuring } from '../support/captured-output.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { useDevelopmentModeSwitch } from './env.ts';

const setDevelopmentMode = useDevelopmentModeSwitch();
const EVENTS = ['contract.funded', 'contract.released'];

async function newAgent(caller?: TestUser) {
  const owner = caller ?? (await createTestUser());
  const { body } = await invoke('createAgent', { caller: owner, body: { name: 'bot' } });
  return { owner, id: body.id as string };
}

const configure = (caller: TestUser, id: string, body: unknown) =>
  invoke('configureWebhook', { caller, params: { id }, body });

describe('PATCH /api/v1/agents/:id/webhook', () => {
  it('moves to PENDING_VERIFICATION and returns the secret on the first configuration only', async () => {
    const { owner, id } = await newAgent();
    const first = await configure(owner, id, { webhook_url: 'https://hooks.example.com/a', events: EVENTS });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      id,
      webhook_url: 'https://hooks.example.com/a',
      events: EVENTS,
      webhook_status: 'PENDING_VERIFICATION',
    });
    expect(first.body.webhook_secret).toMatch(SECRET_PATTERN);

    const second = await configure(owner, id, {
      webhook_url: 'https://hooks.example.com/b',
      events: ['contract.refunded'],
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      webhook_url: 'https://hooks.example.com/b',
      events: ['contract.refunded'],
      webhook_status: 'PENDING_VERIFICATION',
    });
    expect(second.body).not.toHaveProperty('webhook_secret');

    const secret = await invoke('getWebhookSecret', { caller: owner, params: { id } });
    expect(secret).toMatchObject({ status: 200, body: { webhook_secret: first.body.webhook_secret } });
  });

  it('gives exactly one of two concurrent first configurations the secret, and it is the stored one', async () => {
    const { owner, id } = await newAgent();
    const results = await Promise.all(
      [1, 2, 3].map((n) => configure(owner, id, { webhook_url: `https://hooks.example.com/${n}`, events: EVENTS })),
    );
    const secrets = results.map((r) => r.body.webhook_secret).filter(Boolean);
    expect(secrets).toHaveLength(1);
    expect((await invoke('getWebhookSecret', { caller: owner, params: { id } })).body.webhook_secret).toBe(secrets[0]);
  });

  it.each([
    ['no events', { webhook_url: 'https://hooks.example.com/', events: [] }, 'events'],
    [
      'a repeated event',
      { webhook_url: 'https://hooks.example.com/', events: ['contract.funded', 'contract.funded'] },
      'events',
    ],
    ['an unknown event', { webhook_url: 'https://hooks.example.com/', events: ['contract.created'] }, 'events.0'],
    [
      'the handshake event',
      { webhook_url: 'https://hooks.example.com/', events: ['service.webhook.verify'] },
      'events.0',
    ],
    ['no URL', { events: EVENTS }, 'webhook_url'],
    ['no events field', { webhook_url: 'https://hooks.example.com/' }, 'events'],
    ['a URL that is not a string', { webhook_url: 42, events: EVENTS }, 'webhook_url'],
    ['an unknown field', { webhook_url: 'https://hooks.example.com/', events: EVENTS, secret: 'x' }, 'secret'],
  ])('refuses %s with 400 validation_error', async (_what, body, path) => {
    const { owner, id } = await newAgent();
    const res = await configure(owner, id, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toContainEqual(expect.objectContaining({ path }));
    expect((await invoke('getAgent', { caller: owner, params: { id } })).body.webhook_status).toBe('DISABLED');
  });

  it(`refuses each of the ${FORBIDDEN_URLS.length} forbidden URL spellings outside development mode`, async () => {
    setDevelopmentMode(false);
    const { owner, id } = await newAgent();
    const accepted: string[] = [];
    for (const webhook_url of FORBIDDEN_URLS) {
      const res = await configure(owner, id, { webhook_url, events: EVENTS });
      if (res.status !== 400 || res.body.error.details?.[0]?.path !== 'webhook_url') accepted.push(webhook_url);
    }
    expect(accepted).toEqual([]);
    expect((await invoke('getAgent', { caller: owner, params: { id } })).body).toMatchObject({
      webhook_url: null,
      webhook_status: 'DISABLED',
    });
  });

  it('accepts public URLs as written (no DNS at PATCH)', async () => {
    setDevelopmentMode(false);
    const { owner, id } = await newAgent();
    for (const webhook_url of ALLOWED_URLS) {
      const res = await configure(owner, id, { webhook_url, events: EVENTS });
      expect(res.status, webhook_url).toBe(200);
      expect(res.body.webhook_url).toBe(webhook_url);
    }
  });

  it('allows localhost, 127.0.0.1 and [::1] in development mode only', async () => {
    const { owner, id } = await newAgent();
    for (const webhook_url of DEVELOPMENT_ONLY_URLS) {
      setDevelopmentMode(false);
      expect((await configure(owner, id, { webhook_url, events: EVENTS })).status, webhook_url).toBe(400);
      setDevelopmentMode(true);
      expect((await configure(owner, id, { webhook_url, events: EVENTS })).status, webhook_url).toBe(200);
    }
  });

  it('moves DISABLED (after DELETE) to PENDING_VERIFICATION without handing out the secret again', async () => {
    const { owner, id } = await newAgent();
    await configure(owner, id, { webhook_url: 'https://hooks.example.com/', events: EVENTS });
    await invoke('disableWebhook', { caller: owner, params: { id } });
    const again = await configure(owner, id, { webhook_url: 'https://hooks.example.com/2', events: EVENTS });
    expect(again.body).toMatchObject({
      webhook_status: 'PENDING_VERIFICATION',
      webhook_url: 'https://hooks.example.com/2',
    });
    expect(again.body).not.toHaveProperty('webhook_secret');
  });
});

describe('DELETE /api/v1/agents/:id/webhook', () => {
  it('disables, clears the URL and events, keeps the secret', async () => {
    const { owner, id } = await newAgent();
    const { body: configured } = await configure(owner, id, {
      webhook_url: 'https://hooks.example.com/',
      events: EVENTS,
    });
    const res = await invoke('disableWebhook', { caller: owner, params: { id } });
    expect(res).toMatchObject({ status: 200, body: { id, webhook_status: 'DISABLED', webhook_url: null, events: [] } });
    expect((await invoke('getWebhookSecret', { caller: owner, params: { id } })).body.webhook_secret).toBe(
      configured.webhook_secret,
    );
    expect((await invoke('disableWebhook', { caller: owner, params: { id } })).status).toBe(200);
  });
});

describe('webhook secret', () => {
  it('is not there before the first configuration: 409 webhook_not_configured', async () => {
    const { owner, id } = await newAgent();
    for (const route of ['getWebhookSecret', 'rotateWebhookSecret']) {
      const res = await invoke(route, { caller: owner, params: { id } });
      expect(res.status, route).toBe(409);
      expect(res.body.error.code).toBe('webhook_not_configured');
    }
  });

  it('rotates to a new random secret that GET then returns', async () => {
    const { owner, id } = await newAgent();
    const { body: configured } = await configure(owner, id, {
      webhook_url: 'https://hooks.example.com/',
      events: EVENTS,
    });
    const rotated = await invoke('rotateWebhookSecret', { caller: owner, params: { id } });
    expect(rotated.status).toBe(200);
    expect(Object.keys(rotated.body)).toEqual(['webhook_secret']);
    expect(rotated.body.webhook_secret).toMatch(SECRET_PATTERN);
    expect(rotated.body.webhook_secret).not.toBe(configured.webhook_secret);
    expect((await invoke('getWebhookSecret', { caller: owner, params: { id } })).body.webhook_secret).toBe(
      rotated.body.webhook_secret,
    );
    // Rotating does not touch the status or the configuration.
    expect((await invoke('getAgent', { caller: owner, params: { id } })).body).toMatchObject({
      webhook_status: 'PENDING_VERIFICATION',
      webhook_url: 'https://hooks.example.com/',
    });
  });

  it('never appears in logs', async () => {
    setDevelopmentMode(true);
    const savedLevel = process.env['LOG_LEVEL'];
    process.env['LOG_LEVEL'] = 'debug';
    let secrets: string[] = [];
    let written: string;
    try {
      written = await writtenDuring(async () => {
        const { owner, id } = await newAgent();
        const first = await configure(owner, id, { webhook_url: 'http://127.0.0.1:9/', events: EVENTS });
        const rotated = await invoke('rotateWebhookSecret', { caller: owner, params: { id } });
        await invoke('verifyWebhook', { caller: owner, params: { id } });
        secrets = [first.body.webhook_secret, rotated.body.webhook_secret];
      });
    } finally {
      if (savedLevel === undefined) delete process.env['LOG_LEVEL'];
      else process.env['LOG_LEVEL'] = savedLevel;
    }
    expect(secrets.every((s) => SECRET_PATTERN.test(s))).toBe(true);
    expect(written).toContain('webhook handshake'); // the logs were captured at all
    for (const secret of secrets) expect(written).not.toContain(secret);
  });
});

describe('ownership', () => {
  it("answers 404 on every agent route for another user's agent, and changes nothing", async () => {
    setDevelopmentMode(true);
    const { owner, id } = await newAgent();
    await configure(owner, id, { webhook_url: 'https://hooks.example.com/', events: EVENTS });
    const stranger = await createTestUser();
    const attempts: Array<[string, unknown]> = [
      ['getAgent', undefined],
      ['configureWebhook', { webhook_url: 'https://evil.example.com/', events: EVENTS }],
      ['disableWebhook', undefined],
      ['getWebhookSecret', undefined],
      ['rotateWebhookSecret', undefined],
      ['verifyWebhook', undefined],
    ];
    const before = await invoke('getWebhookSecret', { caller: owner, params: { id } });
    for (const [route, body] of attempts) {
      const res = await invoke(route, { caller: stranger, params: { id }, body });
      expect(res.status, route).toBe(404);
      expect(res.body.error.code, route).toBe('not_found');
    }
    expect((await invoke('listAgents', { caller: stranger })).body.data).toEqual([]);
    expect((await invoke('getAgent', { caller: owner, params: { id } })).body).toMatchObject({
      webhook_url: 'https://hooks.example.com/',
      webhook_status: 'PENDING_VERIFICATION',
    });
    expect((await invoke('getWebhookSecret', { caller: owner, params: { id } })).body).toEqual(before.body);
  });

  it('answers 404 for ids that are not agent ids on every agent route', async () => {
    const owner = await createTestUser();
    for (const route of ['getAgent', 'disableWebhook', 'getWebhookSecret', 'rotateWebhookSecret', 'verifyWebhook']) {
      expect(
        (await invoke(route, { caller: owner, params: { id: 'ctr_00000000000000000000000000' } })).status,
        route,
      ).toBe(404);
    }
    const res = await configure(owner, 'agt_short', { webhook_url: 'https://hooks.example.com/', events: EVENTS });
    expect(res.status).toBe(404);
  });
});

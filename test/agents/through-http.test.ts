import { describe, expect, it } from 'vitest';
import { echoChallenge, startReceiver } from '../net/receiver.ts';
import { createTestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';
import { useDevelopmentModeSwitch } from './env.ts';

const api = useLocalApi();
const setDevelopmentMode = useDevelopmentModeSwitch();

describe('agent and webhook routes through the local API Gateway', () => {
  it('creates an agent, configures its webhook, verifies it and reads the secret, over real HTTP', async () => {
    setDevelopmentMode(true);
    const user = await createTestUser();
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${api.url}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${user.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const receiver = await startReceiver(echoChallenge);

    const created = await call('POST', '/agents', { name: 'e2e bot' });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const configured = await call('PATCH', `/agents/${id}/webhook`, {
      webhook_url: receiver.url,
      events: ['contract.funded'],
    });
    expect(configured.body).toMatchObject({
      webhook_status: 'PENDING_VERIFICATION',
      webhook_secret: expect.stringMatching(/^whsec_/),
    });
    expect(await call('POST', `/agents/${id}/webhook/verify`)).toMatchObject({
      status: 200,
      body: { webhook_status: 'ENABLED' },
    });
    expect(await call('GET', `/agents/${id}/webhook/secret`)).toEqual({
      status: 200,
      body: { webhook_secret: configured.body.webhook_secret },
    });
    expect((await call('GET', '/agents')).body.data).toEqual([
      expect.objectContaining({ id, webhook_status: 'ENABLED' }),
    ]);
    expect(receiver.requests).toHaveLength(1);
  });
});

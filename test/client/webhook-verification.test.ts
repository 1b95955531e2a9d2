import { describe, expect, it } from 'vitest';
import { ApiError } from '../../client/index.ts';
import { useLocalApi } from '../support/local-api.ts';
import { clientForNewUser } from './support/local-client.ts';
import { startReceiver } from './support/receiver-harness.ts';

// The local runtime's development mode: webhooks on http://127.0.0.1 are allowed.
process.env['DEVELOPMENT_MODE'] = 'true';

const api = useLocalApi();

describe('end to end: the client verifies the sample receiver', () => {
  it('configure → verify through the client: the receiver echoes the signed challenge and the webhook is ENABLED', async () => {
    const { client } = await clientForNewUser(api.url);
    let secret = 'whsec_not_known_yet';
    const receiverUrl = await startReceiver({ secret: () => secret, onEvent: () => undefined });

    const agent = await client.agents.create({ name: 'verified bot' });
    const configured = await client.agents.configureWebhook(agent.id, {
      webhook_url: receiverUrl,
      events: ['contract.funded'],
    });
    expect(configured.webhook_status).toBe('PENDING_VERIFICATION');
    secret = configured.webhook_secret!;

    const verified = await client.agents.verifyWebhook(agent.id);
    expect(verified).toMatchObject({ id: agent.id, webhook_url: receiverUrl, webhook_status: 'ENABLED' });
    expect((await client.agents.get(agent.id)).webhook_status).toBe('ENABLED');
  });

  it('a receiver holding the wrong secret refuses the signed challenge: 422 endpoint_error, still pending', async () => {
    const { client } = await clientForNewUser(api.url);
    const receiverUrl = await startReceiver({ secret: 'whsec_stale_secret', onEvent: () => undefined });
    const agent = await client.agents.create({ name: 'wrong secret' });
    await client.agents.configureWebhook(agent.id, { webhook_url: receiverUrl, events: ['contract.funded'] });

    const err = await client.agents.verifyWebhook(agent.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 422, code: 'endpoint_error' });
    expect((await client.agents.get(agent.id)).webhook_status).toBe('PENDING_VERIFICATION');
  });
});

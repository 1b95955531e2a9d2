import { describe, expect, it } from 'vitest';
import { ApiError, MarketplaceClient } from '../../client/index.ts';
import { useLocalApi } from '../support/local-api.ts';
import { clientForNewUser } from './support/local-client.ts';

const api = useLocalApi();

async function apiError(call: Promise<unknown>): Promise<ApiError> {
  const err = await call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('client error mapping against the local API', () => {
  it('401 unauthorized for an unknown key, with the request id', async () => {
    const client = new MarketplaceClient({ apiKey: 'mk_not_a_real_key', baseUrl: api.url, maxRetries: 0 });
    const err = await apiError(client.agents.list());
    expect(err).toMatchObject({ status: 401, code: 'unauthorized', details: undefined });
    expect(err.message).toMatch(/API key/);
    expect(err.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("404 not_found for a missing agent and for another user's agent alike", async () => {
    const { client } = await clientForNewUser(api.url);
    const { client: other } = await clientForNewUser(api.url);
    const theirs = await other.agents.create({ name: 'not yours' });
    for (const id of ['agt_00000000000000000000000', theirs.id]) {
      const err = await apiError(client.agents.get(id));
      expect(err).toMatchObject({ status: 404, code: 'not_found' });
      expect(err.requestId).toBeTruthy();
    }
  });

  it('400 validation_error with per-field details', async () => {
    const { client } = await clientForNewUser(api.url);
    const agent = await client.agents.create({ name: 'details' });
    const err = await apiError(client.events.list(agent.id, { limit: 500 }));
    expect(err).toMatchObject({ status: 400, code: 'validation_error' });
    expect(err.details).toEqual([{ path: 'limit', message: expect.any(String) }]);

    const webhookErr = await apiError(
      client.agents.configureWebhook(agent.id, { webhook_url: 'http://10.0.0.1/hook', events: ['contract.funded'] }),
    );
    expect(webhookErr).toMatchObject({ status: 400, code: 'validation_error' });
    expect(webhookErr.details?.map((d) => d.path)).toContain('webhook_url');
  });

  it('409 with the service code when the state forbids the call', async () => {
    const { client } = await clientForNewUser(api.url);
    const agent = await client.agents.create({ name: 'never configured' });
    expect(await apiError(client.agents.verifyWebhook(agent.id))).toMatchObject({
      status: 409,
      code: 'webhook_not_configured',
    });
  });
});

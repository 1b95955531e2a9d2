import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../lib/accounts/api-keys.ts';
import { getPortalLink } from '../../lib/portal/store.ts';
import { hashPortalToken } from '../../lib/portal/token.ts';
import { routes } from '../../lib/routes.ts';
import { apiAnswer } from '../support/api-call.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';
import { expiredPortalToken } from './expired-link.ts';

const api = useLocalApi();

const call = (token: string, method: string, path: string, body?: unknown) =>
  apiAnswer(`${api.url}/api/v1`, token, method, path, body);

async function ownerWithAgent(): Promise<{ owner: TestUser; agentId: string }> {
  const owner = await createTestUser();
  const created = await call(owner.apiKey, 'POST', '/agents', { name: 'portal bot' });
  expect(created.status).toBe(201);
  return { owner, agentId: created.body.id };
}

describe('portal links', () => {
  it("makes a link whose token reads the agent's portal routes and is stored only as its hash", async () => {
    const { owner, agentId } = await ownerWithAgent();
    const before = Date.now();
    const made = await call(owner.apiKey, 'POST', `/agents/${agentId}/portal-links`, { expires_in_seconds: 900 });
    expect(made.status).toBe(201);
    const link = made.body;
    expect(link.url).toBe(`${api.url}/portal/#agent=${agentId}&token=${encodeURIComponent(link.token)}`);
    const lifeMs = Date.parse(link.expires_at) - before;
    expect(lifeMs).toBeGreaterThan(899_000);
    expect(lifeMs).toBeLessThan(901_000 + 5_000);

    const stored = (await getPortalLink(link.id)) as unknown as Record<string, unknown>;
    expect(stored['token_hash']).toBe(hashPortalToken(link.token));
    expect(JSON.stringify(stored)).not.toContain(link.token);
    expect(stored['usage_key']).toBe(hashApiKey(owner.apiKey));

    expect(await call(link.token, 'GET', `/agents/${agentId}`)).toMatchObject({ status: 200, body: { id: agentId } });
    expect((await call(link.token, 'GET', `/agents/${agentId}/deliveries`)).status).toBe(200);
    // No webhook yet: the route's own answer, so the token reached it.
    expect((await call(link.token, 'GET', `/agents/${agentId}/webhook/secret`)).status).toBe(409);
  });

  it('points the link at PORTAL_URL only: a hostile Host or X-Forwarded-* header does not reach it', async () => {
    const { owner, agentId } = await ownerWithAgent();
    const configured = process.env['PORTAL_URL'];
    expect(configured).toBe(`${api.url}/portal/`);
    // fetch keeps Host to itself; node:http sends the header as written, as any client may.
    const answer = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(`${api.url}/api/v1/agents/${agentId}/portal-links`, {
        method: 'POST',
        headers: {
          host: 'attacker.example',
          'x-forwarded-host': 'attacker.example',
          'x-forwarded-proto': 'https',
          authorization: `Bearer ${owner.apiKey}`,
        },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(201);
    expect(answer.body.url.startsWith(`${configured}#agent=`)).toBe(true);
    expect(answer.body.url).not.toContain('attacker');
  });

  it("refuses the token on every route that is not one of that agent's portal routes", async () => {
    const { owner, agentId } = await ownerWithAgent();
    const other = await ownerWithAgent();
    const sameOwnersOther = await call(owner.apiKey, 'POST', '/agents', { name: 'second bot' });
    const { token } = (await call(owner.apiKey, 'POST', `/agents/${agentId}/portal-links`)).body;

    // Another owner's agent and the same owner's other agent: the policy names neither.
    expect((await call(token, 'GET', `/agents/${other.agentId}`)).status).toBe(401);
    expect((await call(token, 'GET', `/agents/${sameOwnersOther.body.id}/deliveries`)).status).toBe(401);
    // Routes outside the portal: account-wide reads, deleting the agent, making more links, the marketplace.
    expect((await call(token, 'GET', '/agents')).status).toBe(401);
    expect((await call(token, 'DELETE', `/agents/${agentId}`)).status).toBe(401);
    expect((await call(token, 'POST', `/agents/${agentId}/portal-links`)).status).toBe(401);
    const templates = await fetch(`${api.url}/v1/marketplace/templates`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(templates.status).toBe(401);
    expect((await call(token, 'GET', '/contracts')).status).toBe(401);
    expect((await call(owner.apiKey, 'GET', `/agents/${agentId}`)).status).toBe(200);
  });

  it('refuses a revoked link at once, and only its owner may revoke it', async () => {
    const { owner, agentId } = await ownerWithAgent();
    const stranger = await ownerWithAgent();
    const link = (await call(owner.apiKey, 'POST', `/agents/${agentId}/portal-links`)).body;
    expect((await call(link.token, 'GET', `/agents/${agentId}`)).status).toBe(200);

    expect((await call(stranger.owner.apiKey, 'DELETE', `/agents/${agentId}/portal-links/${link.id}`)).status).toBe(
      404,
    );
    expect(
      (await call(owner.apiKey, 'DELETE', `/agents/${stranger.agentId}/portal-links/${link.id}`)).status,
      'the link under another agent',
    ).toBe(404);
    expect((await call(link.token, 'GET', `/agents/${agentId}`)).status).toBe(200);

    expect((await call(owner.apiKey, 'DELETE', `/agents/${agentId}/portal-links/${link.id}`)).status).toBe(204);
    expect((await call(owner.apiKey, 'DELETE', `/agents/${agentId}/portal-links/${link.id}`)).status).toBe(204);
    expect((await call(link.token, 'GET', `/agents/${agentId}`)).status).toBe(401);
  });

  it('refuses an expired link, a forged token and an API key in its place', async () => {
    const { owner, agentId } = await ownerWithAgent();
    const expiredToken = await expiredPortalToken(owner, agentId);
    expect((await call(expiredToken, 'GET', `/agents/${agentId}`)).status).toBe(401);

    const live = (await call(owner.apiKey, 'POST', `/agents/${agentId}/portal-links`)).body;
    const forged = `${live.token.slice(0, -1)}${live.token.endsWith('A') ? 'B' : 'A'}`;
    expect((await call(forged, 'GET', `/agents/${agentId}`)).status).toBe(401);
    expect((await call(`pt_${owner.apiKey}`, 'GET', `/agents/${agentId}`)).status).toBe(401);
  });

  it('refuses, in the handler too, a token whose authorizer answer outlived its expiry or names another agent', async () => {
    const { owner, agentId } = await ownerWithAgent();
    const other = await ownerWithAgent();
    const portalCaller = (expiresAt: string, id: string) => ({
      ...owner,
      portal: { agentId: id, linkId: 'pl_0000000000000000', expiresAt },
    });
    const later = new Date(Date.now() + 600_000).toISOString();
    const past = new Date(Date.now() - 1_000).toISOString();
    // As API Gateway would pass a cached answer: the handler checks the expiry itself.
    expect((await invoke('getAgent', { caller: portalCaller(later, agentId), params: { id: agentId } })).status).toBe(
      200,
    );
    expect((await invoke('getAgent', { caller: portalCaller(past, agentId), params: { id: agentId } })).status).toBe(
      401,
    );
    expect(
      (await invoke('getAgent', { caller: portalCaller(later, agentId), params: { id: other.agentId } })).status,
    ).toBe(404);
    // A link's caller cannot make links even if a policy let it through.
    expect(
      (await invoke('createPortalLink', { caller: portalCaller(later, agentId), params: { id: agentId } })).status,
    ).toBe(404);
  });

  it('validates the body and answers 404 for an agent that is not the caller’s', async () => {
    const { owner, agentId } = await ownerWithAgent();
    const stranger = await createTestUser();
    for (const expires_in_seconds of [3601, 59, 1.5])
      expect((await call(owner.apiKey, 'POST', `/agents/${agentId}/portal-links`, { expires_in_seconds })).status).toBe(
        400,
      );
    expect((await call(owner.apiKey, 'POST', `/agents/${agentId}/portal-links`, { scope: 'all' })).status).toBe(400);
    expect((await call(stranger.apiKey, 'POST', `/agents/${agentId}/portal-links`)).status).toBe(404);
  });

  it('the portal routes are the agent routes of the table and nothing account-wide', () => {
    const portal = routes.filter((r) => r.portal).map((r) => `${r.method} ${r.path}`);
    expect(portal.length).toBeGreaterThan(5);
    for (const row of portal) expect(row).toMatch(/ \/api\/v1\/agents\/\{id\}(\/|$)/);
    expect(portal).not.toContain('DELETE /api/v1/agents/{id}');
    expect(portal.some((r) => r.includes('portal-links'))).toBe(false);
  });
});

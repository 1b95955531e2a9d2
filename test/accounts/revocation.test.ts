import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCallerByApiKey, hashApiKey } from '../../lib/accounts/api-keys.ts';
import { openConnection } from '../../lib/events/push/connections.ts';
import { pushToAgent } from '../../lib/events/push/send.ts';
import { listSlots } from '../../lib/events/push/store.ts';
import { runAdmin } from '../../scripts/admin-command.ts';
import { openSocket } from '../events/push-support.ts';
import { createContract, publishTemplate, SIMPLE_SCHEMA, waitFor } from '../events/support.ts';
import { apiAnswer } from '../support/api-call.ts';
import { invoke, type TestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';
import { openSse } from '../support/sse-client.ts';
import { startUsagePlanEndpoint, type UsagePlanEndpoint } from './usage-plan-endpoint.ts';

/**
 * Revocation is total (docs/operations.md, "Revoking a key"): `npm run admin -- revoke-key`, run in
 * this process against this file's DynamoDB Local table and local API, ends the key, the portal
 * links it made, the push connections it opened and its usage plan entry, each by the next request.
 * The usage plan is API Gateway's, which no emulator runs: the admin command's real API Gateway
 * client talks to a stand-in of its control plane on 127.0.0.1 (./usage-plan-endpoint.ts), named
 * by USAGE_PLAN_ID and AWS_ENDPOINT_URL_API_GATEWAY as a deployed stage's would be.
 */
const PLAN = 'plan-under-test';
let plan: UsagePlanEndpoint;
// The local gateway asks the plan, as API Gateway does after the authorizer.
const api = useLocalApi({ usagePlanHolds: (usageKey) => plan.planValues().includes(usageKey) });

interface Issued {
  user_id: string;
  workspace_id: string;
  key_id: string;
  api_key: string;
}

async function admin(...args: string[]): Promise<Record<string, unknown>[]> {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  if (code !== 0) throw new Error(`admin ${args.join(' ')} exited ${code}: ${stderr}`);
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const issue = async (name: string) => (await admin('create-key', '--name', name))[0] as unknown as Issued;

/** The key's caller as the authorizer made it while the key stood, for the handlers run directly. */
const userOf = async (issued: Issued): Promise<TestUser> => ({
  ...(await findCallerByApiKey(issued.api_key))!,
  apiKey: issued.api_key,
});

const call = (token: string, method: string, path: string, body?: unknown) =>
  apiAnswer(`${api.url}/api/v1`, token, method, path, body);

async function agentOf(key: string): Promise<string> {
  const created = await call(key, 'POST', '/agents', { name: 'revocation bot' });
  expect(created.status).toBe(201);
  return created.body.id;
}

/** The portal's calls the finding named: three reads and adding a destination. */
async function portalStatuses(token: string, agentId: string, arnSuffix: string) {
  return {
    agent: (await call(token, 'GET', `/agents/${agentId}`)).status,
    events: (await call(token, 'GET', `/agents/${agentId}/events`)).status,
    deliveries: (await call(token, 'GET', `/agents/${agentId}/deliveries`)).status,
    destination: (
      await call(token, 'POST', `/agents/${agentId}/destinations`, {
        arn: `arn:aws:sqs:us-east-1:000000000000:revocation-${arnSuffix}`,
        events: ['contract.funded'],
      })
    ).status,
  };
}

beforeAll(async () => {
  plan = await startUsagePlanEndpoint(PLAN);
  process.env['USAGE_PLAN_ID'] = PLAN;
  process.env['AWS_ENDPOINT_URL_API_GATEWAY'] = plan.url;
  // The stand-in checks no signature; the SDK still signs, so it needs some credentials.
  process.env['AWS_ACCESS_KEY_ID'] = 'test';
  process.env['AWS_SECRET_ACCESS_KEY'] = 'test';
  process.env['PUSH_CONNECTIONS_ENDPOINT'] = api.url;
});

afterAll(async () => {
  await plan?.close();
});

describe('revoke-key', () => {
  it("ends the key's portal links from their next request, and no other key's", async () => {
    const [owner, other] = [await issue('Link owner'), await issue('Other owner')];
    const [agentId, otherAgentId] = [await agentOf(owner.api_key), await agentOf(other.api_key)];
    const link = (await call(owner.api_key, 'POST', `/agents/${agentId}/portal-links`)).body;
    const otherLink = (await call(other.api_key, 'POST', `/agents/${otherAgentId}/portal-links`)).body;
    const working = { agent: 200, events: 200, deliveries: 200, destination: 201 };
    expect(await portalStatuses(link.token, agentId, 'a')).toEqual(working);

    const [report] = await admin('revoke-key', owner.key_id);
    expect(report).toMatchObject({ key_id: owner.key_id, revoked_at: expect.any(String) });

    const refused = { agent: 401, events: 401, deliveries: 401, destination: 401 };
    expect(await portalStatuses(link.token, agentId, 'b')).toEqual(refused);
    expect((await call(owner.api_key, 'GET', `/agents/${agentId}`)).status).toBe(401);
    // The link itself was never revoked: the key it hangs on was.
    expect(await portalStatuses(otherLink.token, otherAgentId, 'c')).toEqual(working);
  });

  it('revoking a user revokes every key, and so every link of each', async () => {
    const owner = await issue('Whole user');
    const agentId = await agentOf(owner.api_key);
    const link = (await call(owner.api_key, 'POST', `/agents/${agentId}/portal-links`)).body;
    expect((await call(link.token, 'GET', `/agents/${agentId}`)).status).toBe(200);
    expect((await admin('revoke-key', owner.user_id)).map((r) => r['key_id'])).toEqual([owner.key_id]);
    expect((await call(link.token, 'GET', `/agents/${agentId}`)).status).toBe(401);
  });

  it("closes the key's push connections at once and frees their slots, so the push worker sends them nothing", async () => {
    const [owner, other] = [await issue('Push owner'), await issue('Push other')];
    const [ownerUser, otherUser] = [await userOf(owner), await userOf(other)];
    const [agentId, otherAgentId] = [await agentOf(owner.api_key), await agentOf(other.api_key)];
    const templateId = await publishTemplate(otherUser, SIMPLE_SCHEMA);
    // A contract of each agent, funded once before and once after the revocation (its handler
    // runs with the caller captured before: the event is the agent's whoever caused it).
    const fund = async (user: TestUser, id: string) =>
      expect((await invoke('fundContract', { caller: user, params: { id } })).status).toBe(200);
    const [contract, later] = [
      await createContract(ownerUser, agentId, templateId),
      await createContract(ownerUser, agentId, templateId),
    ];
    const [otherContract, otherLater] = [
      await createContract(otherUser, otherAgentId, templateId),
      await createContract(otherUser, otherAgentId, templateId),
    ];
    await fund(ownerUser, contract);
    await fund(otherUser, otherContract);
    const socket = openSocket(api.url, ownerUser, { agent_id: agentId });
    const bystander = openSocket(api.url, otherUser, { agent_id: otherAgentId });
    await Promise.all([socket.opened, bystander.opened]);
    await waitFor(() => socket.events().length >= 1 || undefined, 'the backlog of the connection');
    await waitFor(() => bystander.events().length >= 1 || undefined, 'the backlog of the other connection');

    const [report] = await admin('revoke-key', owner.key_id);
    expect(report).toMatchObject({ push_connections_closed: 1, push_connections_unclosed: 0 });
    // Closed from the service's side (the @connections DeleteConnection), without the client's sync.
    expect(await socket.closed).toBe(1000);
    expect(await listSlots(agentId)).toEqual([]);

    // New events for both agents: the push worker finds no connection of the revoked key to post to.
    await fund(ownerUser, later);
    await fund(otherUser, otherLater);
    const posted: string[] = [];
    const record = async (connectionId: string) => {
      posted.push(connectionId);
      return 'sent' as const;
    };
    await pushToAgent(agentId, record);
    expect(posted).toEqual([]);
    // The other key's connection is untouched and still served.
    await pushToAgent(otherAgentId, record);
    expect(posted.length).toBeGreaterThan(0);
    expect(await listSlots(otherAgentId)).toHaveLength(1);
    await bystander.close();

    // A new handshake with the revoked key is refused.
    await expect(openSocket(api.url, ownerUser, { agent_id: agentId }).opened).rejects.toThrow('handshake refused');
  });

  it("ends the key's SSE streams, its links' streams and a deleted agent's stream at their next access check (10 s)", async () => {
    const [owner, other] = [await issue('Stream owner'), await issue('Stream other')];
    const [agentId, doomedAgentId] = [await agentOf(owner.api_key), await agentOf(other.api_key)];
    const link = (await call(owner.api_key, 'POST', `/agents/${agentId}/portal-links`)).body;
    const stream = (token: string, id: string) =>
      openSse(`${api.url}/api/v1/agents/${id}/events/stream`, { authorization: `Bearer ${token}` });
    const [byKey, byLink, ofDeleted] = await Promise.all([
      stream(owner.api_key, agentId),
      stream(link.token, agentId),
      stream(other.api_key, doomedAgentId),
    ]);
    for (const s of [byKey, byLink, ofDeleted]) expect(s.res.status).toBe(200);

    await admin('revoke-key', owner.key_id);
    expect((await call(other.api_key, 'DELETE', `/agents/${doomedAgentId}`)).status).toBe(204);
    // Each stream was authorized once, minutes ago as far as it knows: it asks again and ends itself.
    await Promise.all([byKey.ended, byLink.ended, ofDeleted.ended]);
    for (const s of [byKey, byLink, ofDeleted]) expect(s.frames.at(-1)).toEqual({ comment: 'access ended' });
    // The client's reconnect: the key and the link are refused by the authorizer, the agent is gone.
    expect((await stream(owner.api_key, agentId)).res.status).toBe(401);
    expect((await stream(link.token, agentId)).res.status).toBe(401);
    expect((await stream(other.api_key, doomedAgentId)).res.status).toBe(404);
  });

  it('refuses a push slot to a handshake whose key was revoked after its key check (the claim commits only while the key stands)', async () => {
    const owner = await issue('Racing handshake');
    const agentId = await agentOf(owner.api_key);
    // The handshake's key check ran (the caller was found), then the revocation ran before the slot's claim.
    const caller = (await findCallerByApiKey(owner.api_key))!;
    expect(await admin('revoke-key', owner.key_id)).toHaveLength(1);
    await expect(
      openConnection(caller, { agentId, connectionId: 'late-claim=', keyHash: hashApiKey(owner.api_key) }),
    ).rejects.toMatchObject({ code: 'unauthorized' });
    expect(await listSlots(agentId)).toEqual([]);
  });

  it('takes the key out of the usage plan and deletes its API Gateway key; a second run finds nothing more to end', async () => {
    const owner = await issue('Plan member');
    const usageKey = hashApiKey(owner.api_key);
    expect(plan.planValues()).toContain(usageKey);
    const [report] = await admin('revoke-key', owner.key_id);
    expect(report).toMatchObject({ usage_plan_key_removed: true });
    expect(plan.planValues()).not.toContain(usageKey);
    expect([...plan.apiKeys.values()].map((k) => k.value)).not.toContain(usageKey);
    const [again] = await admin('revoke-key', owner.key_id);
    expect(again).toMatchObject({
      revoked_at: report!['revoked_at'],
      usage_plan_key_removed: false,
      push_connections_closed: 0,
    });
  });

  it('is enforced by the gateway: a key the plan does not hold is refused though the authorizer allows it, and so are its links', async () => {
    const owner = await issue('Taken out of the plan only');
    const agentId = await agentOf(owner.api_key);
    const link = (await call(owner.api_key, 'POST', `/agents/${agentId}/portal-links`)).body;
    expect((await call(link.token, 'GET', `/agents/${agentId}`)).status).toBe(200);
    // The plan loses the key while the table still holds it (the half of a revocation API Gateway sees).
    const usageKey = hashApiKey(owner.api_key);
    const id = [...plan.apiKeys.values()].find((k) => k.value === usageKey)!.id;
    plan.planKeyIds.delete(id);
    expect(await findCallerByApiKey(owner.api_key)).toBeDefined();
    for (const token of [owner.api_key, link.token])
      expect(await call(token, 'GET', `/agents/${agentId}`)).toMatchObject({
        status: 401,
        body: { error: { code: 'unauthorized', message: 'This API key is not enabled for this API.' } },
      });
  });

  it('leaves the other keys of the plan in it', async () => {
    const [kept, gone] = [await issue('Kept'), await issue('Gone')];
    await admin('revoke-key', gone.key_id);
    expect(plan.planValues()).toContain(hashApiKey(kept.api_key));
    expect((await call(kept.api_key, 'GET', '/agents')).status).toBe(200);
  });
});

import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_AGENTS_PER_ACCOUNT } from '../../lib/core/settings.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import {
  configureWebhook,
  createAgent,
  createContract,
  feedOf,
  publishTemplate,
  SIMPLE_SCHEMA,
} from '../events/support.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';

/** DELETE /api/v1/agents/:id: 404 afterwards everywhere, no new events, the cap freed, the feed kept until its TTL. */
let alice: TestUser;
let mallory: TestUser;
let templateId: string;

beforeAll(async () => {
  [alice, mallory] = await Promise.all([createTestUser(), createTestUser()]);
  templateId = await publishTemplate(alice, SIMPLE_SCHEMA);
});

const remove = (id: string, caller = alice) => invoke('deleteAgent', { caller, params: { id } });

async function storedEventCount(agentId: string): Promise<number> {
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.event(agentId, '').PK, ':prefix': keys.eventPrefix },
      ConsistentRead: true,
    }),
  );
  return Items.length;
}

describe('DELETE /agents/:id', () => {
  it('answers 204, then 404 on every route of the agent, and on a second delete', async () => {
    const agentId = await createAgent(alice);
    await configureWebhook(alice, agentId, 'https://hooks.example.com/in', ['contract.funded']);
    const res = await remove(agentId);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(res.body).toBeUndefined();
    const params = { id: agentId };
    for (const [route, extra] of [
      ['getAgent', {}],
      ['configureWebhook', { body: { webhook_url: 'https://hooks.example.com/in', events: ['contract.funded'] } }],
      ['disableWebhook', {}],
      ['getWebhookSecret', {}],
      ['rotateWebhookSecret', {}],
      ['verifyWebhook', {}],
      ['listAgentEvents', {}],
      ['listDeliveries', {}],
      ['deleteAgent', {}],
    ] as const) {
      const answer = await invoke(route, { caller: alice, params, ...extra });
      expect(answer.status, route).toBe(404);
      expect(answer.body.error.code, route).toBe('not_found');
    }
    const list = await invoke('listAgents', { caller: alice });
    expect(list.body.data.map((a: { id: string }) => a.id)).not.toContain(agentId);
    const contract = await invoke('createContract', {
      caller: alice,
      body: { template_id: templateId, variables: {}, amount_cents: 100, agent_id: agentId },
    });
    expect(contract.status).toBe(404);
  });

  it('is 404 for another account’s agent, which stays as it was', async () => {
    const agentId = await createAgent(alice);
    expect((await remove(agentId, mallory)).status).toBe(404);
    expect((await invoke('getAgent', { caller: alice, params: { id: agentId } })).status).toBe(200);
  });

  it('keeps the feed it had, gives it no new events, and the other party’s feed goes on', async () => {
    const bob = await createTestUser();
    const bobTemplate = await publishTemplate(bob, SIMPLE_SCHEMA);
    const buyer = await createAgent(alice);
    const seller = await createAgent(bob);
    const contractId = await createContract(alice, buyer, bobTemplate, { seller_agent_id: seller });
    expect((await invoke('fundContract', { caller: alice, params: { id: contractId } })).status).toBe(200);
    expect(await storedEventCount(seller)).toBe(1);

    expect((await remove(seller, bob)).status).toBe(204);
    expect((await invoke('refundContract', { caller: bob, params: { id: contractId } })).status).toBe(200);
    expect(await storedEventCount(seller)).toBe(1);
    expect((await feedOf(alice, buyer)).map((e) => e.type)).toEqual(['contract.funded', 'contract.refunded']);
  });

  it('racing deletes of one agent: exactly one 204, and the counter goes down once', async () => {
    const owner = await createTestUser();
    const agentId = await createAgent(owner);
    await createAgent(owner); // another agent stays counted
    const count = async () =>
      (
        await db().send(
          new GetCommand({ TableName: tableName(), Key: keys.agentCount(owner.userId), ConsistentRead: true }),
        )
      ).Item?.['count'];
    expect(await count()).toBe(2);
    const answers = await Promise.all(Array.from({ length: 8 }, () => remove(agentId, owner)));
    expect(answers.map((a) => a.status).sort()).toEqual([204, 404, 404, 404, 404, 404, 404, 404]);
    expect(await count()).toBe(1);
  });

  it('an agent from before the counter existed: deleting it never takes the counter below zero', async () => {
    const owner = await createTestUser();
    const counterKey = keys.agentCount(owner.userId);
    const count = async () =>
      (await db().send(new GetCommand({ TableName: tableName(), Key: counterKey, ConsistentRead: true }))).Item?.[
        'count'
      ];
    // Two agents the counter never saw: one owner's counter is at 0, the other has none at all.
    const [first, second] = [await createAgent(owner), await createAgent(owner)];
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: counterKey,
        UpdateExpression: 'SET #count = :zero',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':zero': 0 },
      }),
    );
    expect((await remove(first, owner)).status).toBe(204);
    expect(await count()).toBe(0);
    await db().send(new DeleteCommand({ TableName: tableName(), Key: counterKey }));
    expect((await remove(second, owner)).status).toBe(204);
    expect(await count()).toBeUndefined();
    expect((await remove(second, owner)).status).toBe(404);
    expect((await invoke('getAgent', { caller: owner, params: { id: first } })).status).toBe(404);
  });

  it('frees its place under the per-account cap', async () => {
    const owner = await createTestUser();
    const ids: string[] = [];
    for (let i = 0; i < MAX_AGENTS_PER_ACCOUNT; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, () => invoke('createAgent', { caller: owner, body: { name: 'bot' } })),
      );
      ids.push(...batch.map((r) => r.body.id as string));
    }
    expect((await invoke('createAgent', { caller: owner, body: { name: 'one too many' } })).status).toBe(409);
    expect((await remove(ids[0]!, owner)).status).toBe(204);
    expect((await invoke('createAgent', { caller: owner, body: { name: 'in its place' } })).status).toBe(201);
    expect((await invoke('createAgent', { caller: owner, body: { name: 'still capped' } })).status).toBe(409);
  });
});

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decorateAwsClients } from '../../../lib/aws/client-hooks.ts';
import { sortablePrefix } from '../../../lib/core/ids.ts';
import { afterPosition, eventIdAt, GAP_GRACE_MS, positionOf } from '../../../lib/events/feed/position.ts';
import { MAX_STORE_CALLS_PER_READ, readFeed } from '../../../lib/events/feed/reader.ts';
import { db, tableName } from '../../../lib/store/client.ts';
import * as keys from '../../../lib/store/key-builders.ts';
import { createTestUser, invoke, type TestUser } from '../../support/lambda.ts';
import { useLocalApi } from '../../support/local-api.ts';
import { openSse } from '../../support/sse-client.ts';
import { createAgent, createContract, feedOf, publishTemplate, SIMPLE_SCHEMA } from '../support.ts';

/**
 * Issue: `after=evt_0000000001` + a suffix below the real slot-1 id, on an agent whose first event
 * was over GAP_GRACE_MS old, made the reader recurse forever (the Query handed it slot 1 again
 * while it expected slot 2, and the gap it then "filled" was empty, so no bound was reached). Every
 * cursor here, forged or real, must end one read within MAX_STORE_CALLS_PER_READ store calls,
 * against DynamoDB Local; the routes refuse cursors that are not a place in the agent's feed.
 */
const api = useLocalApi();
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let owner: TestUser;
let agentId: string;
let otherAgentId: string;
let feed: Array<{ id: string }>;

/** Counts this process's DynamoDB calls; past `limit` a call fails, so a runaway read stops and the test says so. */
const calls = { count: 0, limit: Infinity };
decorateAwsClients((client, service) => {
  if (service !== 'dynamodb') return;
  (client as DynamoDBClient).middlewareStack.add(
    (next) => async (args) => {
      if (++calls.count > calls.limit) throw new Error(`more than ${calls.limit} store calls in one read`);
      return next(args);
    },
    { step: 'initialize', name: 'countStoreCalls' },
  );
});

async function counted<T>(fn: () => Promise<T>): Promise<{ value: T; calls: number }> {
  calls.count = 0;
  calls.limit = MAX_STORE_CALLS_PER_READ;
  try {
    return { value: await fn(), calls: calls.count };
  } finally {
    calls.limit = Infinity;
  }
}

/** Moves every item of the agent's feed back in time, as if its events were long committed (the loop needed that). */
async function age(id: string, byMs: number): Promise<void> {
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.event(id, '').PK },
      ConsistentRead: true,
    }),
  );
  for (const item of Items) {
    if (typeof item['created_at'] !== 'string') continue;
    const older = new Date(Date.parse(item['created_at']) - byMs).toISOString();
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: item['PK'], SK: item['SK'] },
        UpdateExpression: 'SET created_at = :t',
        ExpressionAttributeValues: { ':t': older },
      }),
    );
  }
}

beforeAll(async () => {
  owner = await createTestUser();
  const templateId = await publishTemplate(owner, SIMPLE_SCHEMA);
  agentId = await createAgent(owner);
  otherAgentId = await createAgent(owner);
  for (const agent of [agentId, otherAgentId]) {
    for (let i = 0; i < 2; i++)
      expect(
        (
          await invoke('fundContract', {
            caller: owner,
            params: { id: await createContract(owner, agent, templateId) },
          })
        ).status,
      ).toBe(200);
    await age(agent, GAP_GRACE_MS * 2);
  }
  feed = await feedOf(owner, agentId);
  expect(feed.length).toBeGreaterThanOrEqual(2);
});

afterAll(() => {
  calls.limit = Infinity;
});

const suffix = fc.array(fc.constantFrom(...ALPHABET), { minLength: 16, maxLength: 16 }).map((c) => c.join(''));

/** Real, forged and foreign cursors around the agent's positions. */
function cursors(head: number) {
  const position = fc.integer({ min: 0, max: head + 3 });
  return fc.oneof(
    position.map((p) => eventIdAt(agentId, p)),
    position.map((p) => eventIdAt(otherAgentId, p)),
    position.map((p) => afterPosition(p)),
    position.map((p) => `${sortablePrefix('evt', p)}${'0'.repeat(16)}`),
    fc.tuple(position, suffix).map(([p, s]) => `${sortablePrefix('evt', p)}${s}`),
    fc.tuple(fc.integer({ min: 0, max: 32 ** 10 - 1 }), suffix).map(([p, s]) => `${sortablePrefix('evt', p)}${s}`),
  );
}

const isPlaceInFeed = (cursor: string, head: number) => {
  const p = positionOf(cursor);
  return p <= head && (cursor === eventIdAt(agentId, p) || cursor === afterPosition(p));
};

describe('a feed read ends on any cursor', () => {
  it("the issue's cursor: a position-1 id below the real one, and another agent's first id", async () => {
    const forged = `${sortablePrefix('evt', 1)}${'0'.repeat(16)}`;
    expect(forged < feed[0]!.id).toBe(true);
    for (const cursor of [forged, eventIdAt(otherAgentId, 1)]) {
      const read = await counted(() => readFeed(agentId, cursor, 100));
      expect(read.calls).toBeLessThanOrEqual(MAX_STORE_CALLS_PER_READ);
      const page = await invoke('listAgentEvents', {
        caller: owner,
        params: { id: agentId },
        query: { after: cursor },
      });
      expect(page.status, JSON.stringify(page.body)).toBe(400);
      expect(page.body.error.code).toBe('validation_error');
      expect(page.body.error.details.map((d: { path: string }) => d.path)).toEqual(['after']);
    }
  });

  it('property: random and adversarial cursors end every read within the bound, and a place in the feed reads exactly the slots after it', async () => {
    const head = feed.length;
    await fc.assert(
      fc.asyncProperty(
        cursors(head),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 3 * GAP_GRACE_MS }),
        async (cursor, limit, lateMs) => {
          const read = await counted(() => readFeed(agentId, cursor, limit, Date.now() + lateMs));
          expect(read.calls).toBeLessThanOrEqual(MAX_STORE_CALLS_PER_READ);
          if (isPlaceInFeed(cursor, head)) {
            const after = feed.filter((e) => positionOf(e.id) > positionOf(cursor)).slice(0, limit);
            expect(read.value.events.map((e) => e.id)).toEqual(after.map((e) => e.id));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('property: the list route answers 200 for a place in the feed and 400 validation_error for anything else, never a 5xx', async () => {
    const head = feed.length;
    await fc.assert(
      fc.asyncProperty(cursors(head), async (cursor) => {
        const page = await invoke('listAgentEvents', {
          caller: owner,
          params: { id: agentId },
          query: { after: cursor, limit: '2' },
        });
        expect(page.status, `${cursor}: ${JSON.stringify(page.body)}`).toBe(isPlaceInFeed(cursor, head) ? 200 : 400);
      }),
      { numRuns: 60 },
    );
  });

  it('the stream refuses a forged Last-Event-ID or since= with 400 before it takes a stream slot', async () => {
    const forged = `${sortablePrefix('evt', 1)}${'0'.repeat(16)}`;
    const url = `${api.url}/api/v1/agents/${agentId}/events/stream`;
    const auth = { authorization: `Bearer ${owner.apiKey}` };
    // More than the agent's 5 stream slots: each must be refused, none may hold a slot.
    for (let i = 0; i < 6; i++) {
      const res = await fetch(url, { headers: { ...auth, 'last-event-id': forged } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.details[0].path).toBe('Last-Event-ID');
    }
    const since = await fetch(`${url}?since=${eventIdAt(otherAgentId, 1)}`, { headers: auth });
    expect(since.status).toBe(400);
    expect(((await since.json()) as any).error.details[0].path).toBe('since');
    // A real cursor still streams, with the slots free.
    const stream = await openSse(url, { ...auth, 'last-event-id': feed[0]!.id });
    expect(stream.res.status).toBe(200);
    await stream.close();
  });
});

import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ID_PATTERN, newId } from '../../../lib/core/ids.ts';
import { commitWithEvents } from '../../../lib/events/feed/outbox.ts';
import { eventIdAt, GAP_GRACE_MS, positionOf } from '../../../lib/events/feed/position.ts';
import { readFeed } from '../../../lib/events/feed/reader.ts';
import { fillGap, takeTicket } from '../../../lib/events/feed/store.ts';
import { withCallDeadline } from '../../../lib/store/call-deadline.ts';
import { db, tableName } from '../../../lib/store/client.ts';
import * as keys from '../../../lib/store/key-builders.ts';
import { createTestUser, invoke, type TestUser } from '../../support/lambda.ts';
import { createAgent, createContract, publishTemplate, SIMPLE_SCHEMA } from '../support.ts';

/**
 * The slot rules of lib/events/feed/position.ts, each produced for real on DynamoDB Local: a
 * writer that died after taking its ticket, a writer that comes back after its slot was given
 * away, a failed transition, and an agent from before positions existed.
 */
let owner: TestUser;
let templateId: string;

beforeAll(async () => {
  owner = await createTestUser();
  templateId = await publishTemplate(owner, SIMPLE_SCHEMA);
});

const fund = async (agentId: string) => {
  const res = await invoke('fundContract', {
    caller: owner,
    params: { id: await createContract(owner, agentId, templateId) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const headOf = async (agentId: string) =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: keys.agent(agentId), ConsistentRead: true }))).Item![
    'feed_seq'
  ] as number;

describe('feed slots', () => {
  it('event ids carry the slot: the documented shape, one per (agent, position), sorted by position', () => {
    const a = eventIdAt('agt_A', 7);
    expect(a).toMatch(ID_PATTERN.evt);
    expect(eventIdAt('agt_A', 7)).toBe(a);
    expect(eventIdAt('agt_B', 7)).not.toBe(a);
    expect(positionOf(a)).toBe(7);
    expect([eventIdAt('agt_A', 10), eventIdAt('agt_A', 9), eventIdAt('agt_A', 32)].sort().map(positionOf)).toEqual([
      9, 10, 32,
    ]);
  });

  it('a writer that died after taking its ticket: readers stop before its slot, then fill it once it is old and read on', async () => {
    const agentId = await createAgent(owner);
    await fund(agentId);
    expect(await takeTicket(agentId)).toBeDefined(); // the writer dies here
    await fund(agentId);

    const now = Date.now();
    const early = await readFeed(agentId, undefined, 100, now);
    expect(early.events).toHaveLength(1);
    expect(positionOf(early.cursor!)).toBe(1); // the cursor does not pass the empty slot 2

    const later = await readFeed(agentId, early.cursor, 100, now + GAP_GRACE_MS + 1000);
    expect(later.events).toHaveLength(1);
    expect(positionOf(later.events[0]!.id)).toBe(3);
    expect(await fillGap(agentId, 2)).toBe(false); // slot 2 holds a gap marker now, for good
  });

  it('the newest slot empty (no event after it): judged by the time of the newest ticket', async () => {
    const agentId = await createAgent(owner);
    await fund(agentId);
    await takeTicket(agentId); // dies
    const read = await readFeed(agentId, undefined, 100, Date.now());
    expect(read.events).toHaveLength(1);
    const after = await readFeed(agentId, read.cursor, 100, Date.now() + GAP_GRACE_MS + 1000);
    expect(after.events).toEqual([]);
    expect(positionOf(after.cursor!)).toBe(2); // passed the filled slot: nothing is waited for any more
  });

  it('a writer that comes back after its slot was given away starts again with a new ticket, and its event lands after every cursor', async () => {
    const agentId = await createAgent(owner);
    await fund(agentId);
    const cursor = (await readFeed(agentId, undefined, 100)).cursor!;
    // The next writer will get slot 2; a reader gives that slot away first (as after a long pause).
    expect(await fillGap(agentId, (await headOf(agentId)) + 1)).toBe(true);
    await fund(agentId);
    expect(await headOf(agentId)).toBe(3);
    const read = await readFeed(agentId, cursor, 100);
    expect(read.events.map((e) => positionOf(e.id))).toEqual([3]);
  });

  it('a refused transition leaves no empty slot behind: its slots are filled at once, so readers go on without waiting', async () => {
    const agentId = await createAgent(owner);
    const contractId = await createContract(owner, agentId, templateId);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => invoke('fundContract', { caller: owner, params: { id: contractId } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409]);
    const head = await headOf(agentId);
    const read = await readFeed(agentId, undefined, 100, Date.now());
    expect(read.events.map((e) => e.type)).toEqual(['contract.funded']);
    expect(positionOf(read.cursor!)).toBe(head);
  });

  it("a commit its route's deadline cut off still fills its slot at once: readers go on without waiting", async () => {
    const agentId = await createAgent(owner);
    await fund(agentId);
    const deadline = Date.now() + 1_500;
    const cutOff = withCallDeadline(deadline, () =>
      commitWithEvents(
        () => {
          // The route's work outlasts its deadline between taking the slot and committing.
          while (Date.now() <= deadline);
          return { Put: { TableName: tableName(), Item: { PK: `TEST#${agentId}`, SK: 'cut-off' } } };
        },
        {
          agentIds: [agentId],
          type: 'contract.funded',
          data: { contract_id: newId('ctr'), status: 'FUNDED', amount_cents: 100 },
        },
      ),
    );
    await expect(cutOff).rejects.toThrow('no time left for a store call');
    expect(await headOf(agentId)).toBe(2); // it took slot 2 before the deadline
    await fund(agentId);

    const read = await readFeed(agentId, undefined, 100, Date.now());
    expect(read.events.map((e) => positionOf(e.id))).toEqual([1, 3]);
    expect(await fillGap(agentId, 2)).toBe(false); // its gap marker was already there
  });

  it('an agent from before positions existed keeps its old events first, and new ones follow', async () => {
    const agentId = await createAgent(owner);
    await db().send(
      new UpdateCommand({ TableName: tableName(), Key: keys.agent(agentId), UpdateExpression: 'REMOVE feed_seq' }),
    );
    const old = [newId('evt', Date.now() - 2000), newId('evt', Date.now() - 1000)];
    for (const id of old) {
      const event = {
        id,
        type: 'contract.funded',
        created_at: new Date().toISOString(),
        agent_id: agentId,
        data: { contract_id: 'ctr_OLD' },
      };
      await db().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...keys.event(agentId, id), entity: 'event', ...event, deliver: false },
        }),
      );
    }
    expect((await readFeed(agentId, undefined, 100)).events.map((e) => e.id)).toEqual(old);
    await fund(agentId);
    const all = await readFeed(agentId, undefined, 100);
    expect(all.events).toHaveLength(3);
    expect(all.events.slice(0, 2).map((e) => e.id)).toEqual(old);
    expect(positionOf(all.events[2]!.id)).toBe(positionOf(old[1]!) + 1);
    expect((await readFeed(agentId, old[1], 100)).events.map((e) => e.id)).toEqual([all.events[2]!.id]);
  });
});

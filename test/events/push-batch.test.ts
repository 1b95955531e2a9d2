import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { decorateAwsClients } from '../../lib/aws/client-hooks.ts';
import { PUSH } from '../../lib/core/settings.ts';
import { pushHandOff } from '../../lib/events/push/push-batch.ts';
import { claimSlot, listSlots } from '../../lib/events/push/store.ts';
import { handOffOf } from '../../lib/events/push-hand-off.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { createAgent, createContract, feedOf, publishTemplate, SIMPLE_SCHEMA } from './support.ts';

/**
 * The push worker's invocation against DynamoDB Local, with the relay's hand-off of records made by
 * the test: the records' images stand in for the feed's read when they continue a connection's
 * cursor, and the feed is read whenever they do not, so no slot between the cursor and a record is
 * ever passed. The posts go to a recorder (the channel's own end-to-end tests are push.test.ts).
 */
let alice: TestUser;
let templateId: string;
beforeAll(async () => {
  alice = await createTestUser();
  templateId = await publishTemplate(alice, SIMPLE_SCHEMA);
});

/** Queries of the feed made meanwhile (the read the records spare). */
let queries = 0;
decorateAwsClients((client, service) => {
  if (service !== 'dynamodb') return;
  (client as DynamoDBClient).middlewareStack.add(
    (next, context) => (args) => {
      if (context.commandName === 'QueryCommand') queries++;
      return next(args);
    },
    { step: 'initialize', name: 'countQueries' },
  );
});

async function agentWithEvents(n: number): Promise<{ agentId: string; events: string[] }> {
  const agentId = await createAgent(alice);
  for (let i = 0; i < n; i++)
    await invoke('fundContract', { caller: alice, params: { id: await createContract(alice, agentId, templateId) } });
  return { agentId, events: (await feedOf(alice, agentId)).map((e) => e.id) };
}

/** The stream's INSERT record of a feed slot, as the event source hands it to the worker. */
async function recordOf(agentId: string, eventId: string, sequence: number) {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.event(agentId, eventId) }));
  return {
    eventName: 'INSERT',
    dynamodb: { NewImage: marshall(Item!), SequenceNumber: String(sequence).padStart(21, '0') },
  };
}

type Record_ = Awaited<ReturnType<typeof recordOf>>;

/** What the relay hands over for these records, and the worker's run of it. */
const pushBatch = (records: Record_[], post: ReturnType<typeof recorder>['post']) =>
  pushHandOff(handOffOf(records)!.handOff, post);

function recorder() {
  const posted: { connection: string; id: string }[] = [];
  const post = async (connection: string, frame: string) => {
    posted.push({ connection, id: (JSON.parse(frame) as { id: string }).id });
    return 'sent' as const;
  };
  return { posted, post };
}

async function connect(agentId: string, connectionId: string, cursor: string | undefined): Promise<void> {
  const claimed = await claimSlot(agentId, 0, { connectionId, keyHash: alice.usageKey!, cursor }, Date.now());
  expect(claimed).toBe(true);
}

describe('push batch: the records as the first read', () => {
  it('sends the records that continue the cursor without reading the feed, and moves the cursor', async () => {
    const { agentId, events } = await agentWithEvents(3);
    await connect(agentId, `c-${agentId}`, events[0]);
    const { posted, post } = recorder();
    const before = queries;
    const failed = await pushBatch(
      [await recordOf(agentId, events[1]!, 1), await recordOf(agentId, events[2]!, 2)],
      post,
    );
    expect(failed).toEqual([]);
    expect(posted.map((p) => p.id)).toEqual(events.slice(1));
    expect(queries - before).toBe(0);
    expect((await listSlots(agentId))[0]!.cursor).toBe(events[2]);
  });

  it('reads the feed when a slot between the cursor and the records is not among them: nothing is passed', async () => {
    const { agentId, events } = await agentWithEvents(3);
    await connect(agentId, `c-${agentId}`, events[0]);
    const { posted, post } = recorder();
    // Only the newest record: the slot before it (events[1]) is in the table, not in the batch.
    expect(await pushBatch([await recordOf(agentId, events[2]!, 1)], post)).toEqual([]);
    expect(posted.map((p) => p.id)).toEqual(events.slice(1));
    expect((await listSlots(agentId))[0]!.cursor).toBe(events[2]);
  });

  it('reads on from the end of the run while the counter says more slots were taken', async () => {
    const { agentId, events } = await agentWithEvents(3);
    await connect(agentId, `c-${agentId}`, events[0]);
    const { posted, post } = recorder();
    // The record of events[1] only; events[2] committed too (its record would come in a later batch).
    expect(await pushBatch([await recordOf(agentId, events[1]!, 1)], post)).toEqual([]);
    expect(posted.map((p) => p.id)).toEqual(events.slice(1));
  });

  it('sends nothing again for records the cursor has passed (a sync sent them first)', async () => {
    const { agentId, events } = await agentWithEvents(2);
    await connect(agentId, `c-${agentId}`, events[1]);
    const { posted, post } = recorder();
    const before = queries;
    expect(await pushBatch([await recordOf(agentId, events[1]!, 1)], post)).toEqual([]);
    expect(posted).toEqual([]);
    expect(queries - before).toBe(0);
  });
});

describe("the relay's hand-off", () => {
  it('names each agent once with its slots in stream order, and leaves out what is not a new feed slot', async () => {
    const { agentId, events } = await agentWithEvents(2);
    const records = [await recordOf(agentId, events[0]!, 1), await recordOf(agentId, events[1]!, 2)];
    const modified = { ...records[0]!, eventName: 'MODIFY' };
    const made = handOffOf([modified, ...records]);
    expect(made!.first).toBe(records[0]);
    expect(made!.handOff.agents).toEqual([{ agent_id: agentId, images: records.map((r) => r.dynamodb.NewImage) }]);
    expect(handOffOf([modified])).toBeUndefined();
  });

  it(`past ${PUSH.handOffMaxBytes / 1024} KB carries the agent ids alone, and the worker reads the feed for them`, async () => {
    const { agentId, events } = await agentWithEvents(2);
    await connect(agentId, `c-${agentId}`, undefined);
    const record = await recordOf(agentId, events[1]!, 1);
    // The same slot's image, padded past the budget (as a batch of many large events would be).
    const padded = {
      ...record,
      dynamodb: {
        ...record.dynamodb,
        NewImage: { ...record.dynamodb.NewImage, pad: { S: 'x'.repeat(PUSH.handOffMaxBytes) } },
      },
    };
    const made = handOffOf([padded])!;
    expect(made.handOff).toEqual({ agents: [{ agent_id: agentId }] });
    const { posted, post } = recorder();
    const before = queries;
    expect(await pushHandOff(made.handOff, post)).toEqual([]);
    expect(posted.map((p) => p.id)).toEqual(events);
    expect(queries - before).toBeGreaterThan(0);
  });
});

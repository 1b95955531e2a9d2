import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAY_LIMITS } from '../../lib/core/settings.ts';
import { workers } from '../../lib/routes.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { createDeliveryQueues, type LocalSqs, startLocalSqs } from '../../local/emulators/sqs.ts';
import { loadHandler } from '../../local/lambda/handlers.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import {
  createAgent,
  createContract,
  deliveriesOf,
  enableWebhook,
  publishTemplate,
  SIMPLE_SCHEMA,
  startWebhookReceiver,
} from './support.ts';

/**
 * The replay job driven by hand (real fauxqs, no pollers): each page item is handed to the relay
 * as its stream record would be, twice where the stream might, to show a page is idempotent, that
 * pages chain to the end, and that the job stops when the webhook stops being ENABLED.
 */
process.env['REPLAY_PAGE_ITEMS'] = '2';

let sqs: LocalSqs;
let owner: TestUser;
let templateId: string;
let relay: (e: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

beforeAll(async () => {
  sqs = await startLocalSqs({});
  const queues = await createDeliveryQueues(sqs.client, tableName(), {
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 20,
  });
  process.env['SQS_ENDPOINT'] = sqs.endpoint;
  process.env['DELIVERY_QUEUE_URL'] = queues.queueUrl;
  relay = await loadHandler(workers.relay);
  owner = await createTestUser();
  templateId = await publishTemplate(owner, SIMPLE_SCHEMA);
});
afterAll(async () => {
  await sqs?.stop();
});

async function pages(agentId: string): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
      ExpressionAttributeValues: { ':pk': keys.agent(agentId).PK, ':p': 'REPLAY#' },
      ConsistentRead: true,
    }),
  );
  return Items;
}

const asStreamRecord = (item: Record<string, unknown>, sequence: string): DynamoDBRecord => ({
  eventName: 'INSERT',
  eventSource: 'aws:dynamodb',
  dynamodb: {
    NewImage: marshall(item, { removeUndefinedValues: true }) as Record<string, AttributeValue> as never,
    SequenceNumber: sequence,
    StreamViewType: 'NEW_AND_OLD_IMAGES',
  },
});

async function relayPage(item: Record<string, unknown>): Promise<void> {
  const answer = await relay({ Records: [asStreamRecord(item, String(Date.now()))] });
  expect(answer.batchItemFailures).toEqual([]);
}

describe('the replay job', () => {
  it('pages through the window a page per record, each page idempotent, and stops once the webhook is no longer ENABLED', async () => {
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    const since = new Date(Date.now() - 60_000).toISOString();
    for (let i = 0; i < 5; i++) {
      const id = await createContract(owner, agentId, templateId);
      expect((await invoke('fundContract', { caller: owner, params: { id } })).status).toBe(200);
    }
    await enableWebhook(owner, agentId, receiver.url, ['contract.funded']);
    const accepted = await invoke('replayEvents', { caller: owner, params: { id: agentId }, body: { since } });
    expect(accepted.body).toEqual({ replayed: 5 });

    let written = await pages(agentId);
    expect(written).toHaveLength(1);
    // The stream may hand a record over twice: the same two deliveries, one successor page.
    await relayPage(written[0]!);
    await relayPage(written[0]!);
    expect(await deliveriesOf(owner, agentId)).toHaveLength(2);
    written = await pages(agentId);
    expect(written).toHaveLength(2);

    await relayPage(written[1]!);
    expect(await deliveriesOf(owner, agentId)).toHaveLength(4);
    written = await pages(agentId);
    expect(written).toHaveLength(3);

    // Disabled before the last page runs: nothing more is sent and no page follows.
    expect((await invoke('disableWebhook', { caller: owner, params: { id: agentId } })).status).toBe(200);
    await relayPage(written[2]!);
    expect(await deliveriesOf(owner, agentId)).toHaveLength(4);
    expect(await pages(agentId)).toHaveLength(3);
  });

  it(`lets an agent start ${REPLAY_LIMITS.perWindow} replays per window; the next is 429 with Retry-After, another agent is not held up`, async () => {
    const receiver = await startWebhookReceiver();
    const [agentId, other] = [await createAgent(owner), await createAgent(owner)];
    for (const id of [agentId, other]) await enableWebhook(owner, id, receiver.url, ['contract.funded']);
    const since = new Date(Date.now() - 60_000).toISOString();
    const replay = (id: string) => invoke('replayEvents', { caller: owner, params: { id }, body: { since } });
    const answers = await Promise.all(Array.from({ length: REPLAY_LIMITS.perWindow + 3 }, () => replay(agentId)));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(REPLAY_LIMITS.perWindow);
    const refused = answers.filter((a) => a.status !== 202);
    expect(refused.map((a) => a.status)).toEqual([429, 429, 429]);
    for (const a of refused) expect(Number(a.headers['retry-after'] ?? a.headers['Retry-After'])).toBeGreaterThan(3000);
    expect((await replay(other)).status).toBe(202);
  });
});

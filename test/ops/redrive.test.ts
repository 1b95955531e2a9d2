import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableName } from '../../lib/store/client.ts';
import { createDeliveryQueues, type DeliveryQueues, type LocalSqs, startLocalSqs } from '../../local/emulators/sqs.ts';
import { queueDepth } from '../support/queue-depth.ts';

const root = join(import.meta.dirname, '../..');
const run = promisify(execFile);
let sqs: LocalSqs;
let queues: DeliveryQueues;

beforeAll(async () => {
  sqs = await startLocalSqs({});
  queues = await createDeliveryQueues(sqs.client, tableName(), { visibilityTimeoutSeconds: 30, maxReceiveCount: 20 });
});
afterAll(async () => sqs?.stop());

function admin(...args: string[]) {
  return run(process.execPath, [join(root, 'scripts/admin.ts'), ...args], {
    cwd: root,
    env: {
      ...process.env,
      LOG_LEVEL: 'silent',
      SQS_ENDPOINT: sqs.endpoint,
      DELIVERY_DLQ_URL: queues.deadLetterQueueUrl,
      DELIVERY_QUEUE_URL: queues.queueUrl,
    },
  });
}

const depth = (url: string) => queueDepth(sqs.client, url);

describe('admin redrive', () => {
  it('moves every message of the delivery DLQ back to the delivery queue, bodies intact, and prints the count', async () => {
    const bodies = Array.from({ length: 23 }, (_, i) =>
      JSON.stringify({ agent_id: 'agt_x', delivery_id: `dlv_${i}`, event_id: `evt_${i}` }),
    );
    for (const body of bodies)
      await sqs.client.send(new SendMessageCommand({ QueueUrl: queues.deadLetterQueueUrl, MessageBody: body }));

    const { stdout } = await admin('redrive', 'delivery');
    expect(JSON.parse(stdout)).toEqual({ moved: 23, failed: 0 });
    expect(await depth(queues.deadLetterQueueUrl)).toBe(0);

    const received: string[] = [];
    while (received.length < bodies.length) {
      const { Messages } = await sqs.client.send(
        new ReceiveMessageCommand({ QueueUrl: queues.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      if (!Messages?.length) break;
      received.push(...Messages.map((m) => m.Body!));
    }
    expect(received.sort()).toEqual([...bodies].sort());
  });

  it('says so when the DLQ is empty', async () => {
    const { stdout } = await admin('redrive', queues.deadLetterQueueUrl, '--to', queues.queueUrl);
    expect(JSON.parse(stdout)).toEqual({ moved: 0, failed: 0 });
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalSqs, startLocalSqs } from '../../local/emulators/sqs.ts';

/**
 * What the local SQS adds to fauxqs (local/emulators/sqs-fair-queue.ts), through the SQS API: the
 * in-flight limit (OverLimit past it, as AWS answers) and fair queues (a group with a backlog does
 * not crowd the others out).
 */
let sqs: LocalSqs;
const LIMIT = 12;

beforeAll(async () => {
  process.env['SQS_IN_FLIGHT_LIMIT'] = String(LIMIT);
  sqs = await startLocalSqs({});
});

afterAll(async () => {
  delete process.env['SQS_IN_FLIGHT_LIMIT'];
  await sqs?.stop();
});

async function queue(name: string): Promise<string> {
  return (await sqs.client.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl!;
}

async function send(queueUrl: string, agents: string[]): Promise<void> {
  for (let i = 0; i < agents.length; i += 10)
    await sqs.client.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: agents.slice(i, i + 10).map((agent, j) => ({
          Id: String(j),
          MessageBody: JSON.stringify({ agent_id: agent, n: i + j }),
          MessageGroupId: agent,
        })),
      }),
    );
}

const receive = async (queueUrl: string): Promise<Message[]> =>
  (await sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }))).Messages ?? [];
const agentOf = (m: Message) => (JSON.parse(m.Body!) as { agent_id: string }).agent_id;

describe('the local SQS', () => {
  it('is pinned to the fauxqs version whose queue module it extends', () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8'));
    expect(pkg.devDependencies?.fauxqs ?? pkg.dependencies?.fauxqs).toBe('2.4.1');
  });

  it('refuses a receive past its in-flight limit with OverLimit, and gives at most the room left', async () => {
    const url = await queue('in-flight-limit');
    await send(
      url,
      Array.from({ length: LIMIT + 8 }, () => 'agt_a'),
    );
    const first = await receive(url);
    expect(first).toHaveLength(10);
    expect(await receive(url)).toHaveLength(LIMIT - 10);
    const refused = await receive(url).catch((err: Error) => err);
    expect((refused as Error).name).toMatch(/OverLimit$/);
    await sqs.client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: first[0]!.ReceiptHandle! }));
    expect(await receive(url)).toHaveLength(1);
  });

  it('hands out the other groups first when one has a backlog (a fair queue)', async () => {
    const url = await queue('fair');
    await send(url, [...Array.from({ length: 30 }, () => 'agt_backlog'), 'agt_b', 'agt_b', 'agt_c']);
    const first = (await receive(url)).map(agentOf);
    expect(first.filter((a) => a === 'agt_b')).toHaveLength(2);
    expect(first.filter((a) => a === 'agt_c')).toHaveLength(1);
    expect(first.filter((a) => a === 'agt_backlog')).toHaveLength(7);
  });
});

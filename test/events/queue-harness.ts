import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, expect } from 'vitest';
import { type DeliverOptions, deliverBatch } from '../../lib/events/delivery/deliver-batch.ts';
import { relayBatch } from '../../lib/events/relay.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { createDeliveryQueues, type DeliveryQueues, type LocalSqs, startLocalSqs } from '../../local/emulators/sqs.ts';
import { toSqsRecord } from '../../local/emulators/sqs-poller.ts';

/**
 * The relay and the delivery worker driven by hand on a real fauxqs queue and DynamoDB Local, for
 * tests that move the worker's clock instead of waiting: a message's next attempt is a delayed copy
 * (lib/events/delivery/queue.ts, `sendLater`), not seen again in real time, so a test sends the
 * delivery's message again (`sendScheduledCopy`) when it moves on. `later` counts the delayed copies
 * a batch sent. Call `useDeliveryQueue()` at the top level of a test file.
 */
export interface DeliveryQueue {
  /** The relay run on an event's stream record, as the table's stream would. */
  relay(agentId: string, eventId: string): Promise<void>;
  /** Every visible message through the delivery worker in one batch; the ids it left in the queue, and the delayed copies it sent. */
  deliverVisible(options?: DeliverOptions): Promise<{ received: number; left: string[]; later: number }>;
  /** Messages sent with a delay that are not yet visible (the delayed copies of later attempts). */
  delayed(): Promise<number>;
  /** Another copy of a delivery's scheduled message, as SQS or the relay may make one. */
  sendScheduledCopy(agentId: string, deliveryId: string, eventId: string): Promise<void>;
  /** Every visible message, received (not delivered). */
  receiveVisible(): Promise<Message[]>;
  /** A received message as the delivery worker's event source hands it over. */
  recordOf(message: Message): SQSRecord;
}

/** The stream record DynamoDB writes for a new event row. */
export async function eventStreamRecord(agentId: string, eventId: string, sequence: string): Promise<DynamoDBRecord> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.event(agentId, eventId) }));
  return {
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: marshall(keys.event(agentId, eventId)) as never,
      NewImage: marshall(Item!) as Record<string, AttributeValue> as never,
      SequenceNumber: sequence,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

export const deliveryIdOf = (eventId: string) => `dlv_${eventId.slice(4)}`;

export function useDeliveryQueue(): DeliveryQueue {
  let sqs: LocalSqs;
  let queues: DeliveryQueues;
  beforeAll(async () => {
    sqs = await startLocalSqs({});
    queues = await createDeliveryQueues(sqs.client, tableName(), { visibilityTimeoutSeconds: 30, maxReceiveCount: 20 });
    process.env['SQS_ENDPOINT'] = sqs.endpoint;
    process.env['DELIVERY_QUEUE_URL'] = queues.queueUrl;
  });
  afterAll(async () => {
    await sqs?.stop();
  });

  const streamRecordOf = (agentId: string, eventId: string) => eventStreamRecord(agentId, eventId, eventId);

  async function receiveVisible(): Promise<Message[]> {
    const all: Message[] = [];
    for (;;) {
      const { Messages = [] } = await sqs.client.send(
        new ReceiveMessageCommand({
          QueueUrl: queues.queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: all.length ? 0 : 1,
        }),
      );
      if (Messages.length === 0) return all;
      all.push(...Messages);
    }
  }

  async function delayed(): Promise<number> {
    const { Attributes = {} } = await sqs.client.send(
      new GetQueueAttributesCommand({
        QueueUrl: queues.queueUrl,
        AttributeNames: ['ApproximateNumberOfMessagesDelayed'],
      }),
    );
    return Number(Attributes['ApproximateNumberOfMessagesDelayed'] ?? 0);
  }

  return {
    receiveVisible,
    delayed,
    recordOf: (message) => toSqsRecord(message, queues.queueArn),
    async relay(agentId, eventId) {
      expect(await relayBatch([await streamRecordOf(agentId, eventId)])).toEqual([]);
    },
    async deliverVisible(options = {}) {
      const messages = await receiveVisible();
      const before = await delayed();
      const left = await deliverBatch(
        messages.map((m) => toSqsRecord(m, queues.queueArn)),
        options,
      );
      return { received: messages.length, left, later: (await delayed()) - before };
    },
    async sendScheduledCopy(agentId, deliveryId, eventId) {
      await sqs.client.send(
        new SendMessageCommand({
          QueueUrl: queues.queueUrl,
          MessageBody: JSON.stringify({ agent_id: agentId, delivery_id: deliveryId, event_id: eventId }),
        }),
      );
    },
  };
}

import { ChangeMessageVisibilityCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { endpointOverride } from '../aws-endpoint.ts';
import { awsClientMade } from '../aws/client-hooks.ts';

/**
 * The delivery queue. A message names one delivery record; the record, not the message, holds the
 * state, so a message can be duplicated or replayed without harm. SQS_ENDPOINT points the client
 * at fauxqs locally; in AWS it is unset.
 */
export interface DeliveryMessage {
  agent_id: string;
  delivery_id: string;
  event_id: string;
}

/** A message as the queue hands it over (an SQS event record or a ReceiveMessage result). */
export interface ReceivedMessage {
  messageId: string;
  body: string;
  receiptHandle: string;
}

let client: SQSClient | undefined;
let clientEndpoint: string | undefined;

export function sqs(): SQSClient {
  const endpoint = process.env['SQS_ENDPOINT'] || undefined;
  if (!client || clientEndpoint !== endpoint) {
    client = new SQSClient(endpointOverride(endpoint));
    awsClientMade(client, 'sqs');
    clientEndpoint = endpoint;
  }
  return client;
}

export function deliveryQueueUrl(): string {
  const url = process.env['DELIVERY_QUEUE_URL'];
  if (!url) throw new Error('DELIVERY_QUEUE_URL is not set');
  return url;
}

export async function enqueueDelivery(message: DeliveryMessage): Promise<void> {
  await sqs().send(new SendMessageCommand({ QueueUrl: deliveryQueueUrl(), MessageBody: JSON.stringify(message) }));
}

/** Parks a received message until its next attempt is due (the retry schedule lives in visibility). */
export async function postpone(receiptHandle: string, seconds: number): Promise<void> {
  await sqs().send(new ChangeMessageVisibilityCommand({ QueueUrl: deliveryQueueUrl(), ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
}

/** Strict reading of a message body: anything else is a poison message for the DLQ. */
export function parseDeliveryMessage(body: string): DeliveryMessage | undefined {
  try {
    const value = JSON.parse(body) as Record<string, unknown>;
    const { agent_id, delivery_id, event_id } = value;
    if ([agent_id, delivery_id, event_id].every((v) => typeof v === 'string' && /^[a-z]{3}_[0-9A-Za-z]{10,60}$/.test(v))) {
      return { agent_id, delivery_id, event_id } as DeliveryMessage;
    }
  } catch {
    // falls through: not JSON
  }
  return undefined;
}

/**
 * The delivery queue. A message names one delivery record; the record, not the message, holds the
 * state, so a message can be duplicated or replayed without harm. SQS_ENDPOINT points the client
 * at fauxqs locally; in AWS it is unset.
 */
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { awsClientMade } from '../../aws/client-hooks.ts';
import { callJsonApi, SQS_API } from '../../aws/json-protocol.ts';
import { withoutSdkLogger } from '../../aws/no-sdk-logger.ts';
import { emulatorJsonCall, endpointOverride } from '../../aws-endpoint.ts';
import { setting } from '../../core/environment.ts';

export interface DeliveryMessage {
  agent_id: string;
  delivery_id: string;
  event_id: string;
  /** A manual retry: one extra attempt now, outside the schedule (docs/webhooks.md). */
  manual?: true;
  /** With `manual`: sent even though the delivery already succeeded. */
  force?: true;
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
  const endpoint = setting('SQS_ENDPOINT');
  if (!client || clientEndpoint !== endpoint) {
    client = withoutSdkLogger(new SQSClient(endpointOverride(endpoint)));
    awsClientMade(client, 'sqs');
    clientEndpoint = endpoint;
  }
  return client;
}

/** A queue's URL from its variable (this queue's, or the destinations' queue of destination-queue.ts). */
export function queueUrlSetting(name: 'DELIVERY_QUEUE_URL' | 'DESTINATION_QUEUE_URL'): string {
  const url = setting(name);
  if (!url) throw new Error(`${name} is not set`);
  return url;
}

export const deliveryQueueUrl = (): string => queueUrlSetting('DELIVERY_QUEUE_URL');

export async function enqueueDelivery(message: DeliveryMessage): Promise<void> {
  await sqs().send(new SendMessageCommand({ QueueUrl: deliveryQueueUrl(), MessageBody: JSON.stringify(message) }));
}

/** SendMessageBatch's limit. */
const SEND_BATCH = 10;

/**
 * Sends in batches of 10. Returns the indexes (into `messages`) that were not sent, with the
 * reason; a batch call that fails as a whole counts every message of it.
 */
export async function enqueueDeliveries(
  messages: readonly DeliveryMessage[],
): Promise<{ failed: number[]; errors: Map<number, string> }> {
  const failed: number[] = [];
  const errors = new Map<number, string>();
  const groups: number[][] = [];
  for (let i = 0; i < messages.length; i += SEND_BATCH)
    groups.push(Array.from({ length: Math.min(SEND_BATCH, messages.length - i) }, (_, j) => i + j));
  await Promise.all(
    groups.map(async (group) => {
      try {
        const { Failed = [] } = await sqs().send(
          new SendMessageBatchCommand({
            QueueUrl: deliveryQueueUrl(),
            Entries: group.map((index) => ({ Id: String(index), MessageBody: JSON.stringify(messages[index]) })),
          }),
        );
        for (const entry of Failed) {
          failed.push(Number(entry.Id));
          errors.set(Number(entry.Id), `${entry.Code ?? 'error'}: ${entry.Message ?? ''}`);
        }
      } catch (err) {
        for (const index of group) {
          failed.push(index);
          errors.set(index, err instanceof Error ? err.message : String(err));
        }
      }
    }),
  );
  return { failed, errors };
}

/**
 * Parks a received message until its next attempt is due (the retry schedule lives in visibility);
 * `queueUrl`: the destinations' queue. One signed JSON call, not the SDK client: it is the webhook
 * worker's only SQS call, and the client would be 24 KB of that bundle (lib/aws/json-protocol.ts).
 * The transport retries it as the SDK would; a message it still fails to park stays in the batch's
 * failures, comes back after the queue's visibility timeout, finds its attempt not yet due and is
 * parked again, without a POST.
 */
export async function postpone(receiptHandle: string, seconds: number, queueUrl = deliveryQueueUrl()): Promise<void> {
  await callJsonApi(
    SQS_API,
    'ChangeMessageVisibility',
    { QueueUrl: queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds },
    emulatorJsonCall(setting('SQS_ENDPOINT')),
  );
}

/** Strict reading of a message body: anything else is a poison message for the DLQ. */
export function parseDeliveryMessage(body: string): DeliveryMessage | undefined {
  try {
    const value = JSON.parse(body) as Record<string, unknown>;
    const { agent_id, delivery_id, event_id, manual, force } = value;
    const flagsValid =
      [manual, force].every((v) => v === undefined || v === true) && (force === undefined || manual === true);
    if (
      flagsValid &&
      [agent_id, delivery_id, event_id].every((v) => typeof v === 'string' && /^[a-z]{3}_[0-9A-Za-z]{10,60}$/.test(v))
    ) {
      return {
        agent_id,
        delivery_id,
        event_id,
        ...(manual ? { manual: true } : {}),
        ...(force ? { force: true } : {}),
      } as DeliveryMessage;
    }
  } catch {
    // falls through: not JSON
  }
  return undefined;
}

/**
 * The customer's side of an SQS destination on the local runtime: a queue of the SQS emulator, and
 * the next message the service sent into it, read as the customer would (body and message
 * attributes, the latter as the signature's headers).
 */
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { waitFor } from '../events/support.ts';

export interface ReceivedMessage {
  body: string;
  headers: Record<string, string>;
}

/** A fresh queue (its name made unique), with the ARN a destination names it by. */
export async function createCustomerQueue(sqs: SQSClient, name: string): Promise<{ url: string; arn: string }> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-${Date.now()}` }));
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
  return { url: QueueUrl!, arn: Attributes!['QueueArn']! };
}

export async function nextCustomerMessage(sqs: SQSClient, url: string): Promise<ReceivedMessage> {
  return waitFor(async () => {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
      }),
    );
    const m = Messages[0];
    if (!m) return undefined;
    const headers = Object.fromEntries(
      Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue ?? '']),
    );
    return { body: m.Body!, headers };
  }, 'a message in the customer queue');
}

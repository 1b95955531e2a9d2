import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';

/**
 * Messages a queue holds in any state: visible, in flight (received, or postponed by the delivery
 * worker) or delayed. At 0 none can come back to post again.
 */
export async function queueDepth(client: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes = {} } = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return (
    Number(Attributes['ApproximateNumberOfMessages'] ?? 0) +
    Number(Attributes['ApproximateNumberOfMessagesNotVisible'] ?? 0) +
    Number(Attributes['ApproximateNumberOfMessagesDelayed'] ?? 0)
  );
}

/**
 * The destinations' queue → customers' SQS queues and EventBridge buses (lib/events/delivery/destination-batch.ts),
 * and the destinations' verification messages. Its own function so the webhook worker carries no
 * EventBridge client (docs/cost.md, bundle budget).
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverDestinationBatch } from '../../lib/events/delivery/destination-batch.ts';
import { observed } from '../../lib/observability/lambda.ts';

export const handler = observed(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const keep = await deliverDestinationBatch(event.Records);
  return { batchItemFailures: keep.map((itemIdentifier) => ({ itemIdentifier })) };
});

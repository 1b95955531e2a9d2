/**
 * Table stream → the push channel: each agent with new feed slots has its WebSocket connections
 * sent what they have not been sent (lib/events/push/push-batch.ts).
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { postFrame } from '../../lib/events/push/channel.ts';
import { pushBatch } from '../../lib/events/push/push-batch.ts';
import { observed } from '../../lib/observability/lambda.ts';

export const handler = observed(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const failed = await pushBatch(event.Records, postFrame);
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
});

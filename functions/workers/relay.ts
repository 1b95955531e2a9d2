/**
 * Table stream → delivery queue. The event source filters to new event rows (lib/events/stream-filter.ts);
 * failed records are reported so the stream retries from the earliest of them.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { relayBatch } from '../../lib/events/relay.ts';
import { observed } from '../../lib/observability/lambda.ts';

export const handler = observed(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const failed = await relayBatch(event.Records);
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
});

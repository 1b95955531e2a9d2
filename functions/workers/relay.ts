import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { relayBatch } from '../../lib/events/relay.ts';

/**
 * Table stream → delivery queue. The event source filters to new event rows (lib/events/stream-filter.ts);
 * failed records are reported so the stream retries from the earliest of them.
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const failed = await relayBatch(event.Records);
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
}

/**
 * Table stream → search index (postings in three orders, prefix counters). The event source filters
 * to template items (SEARCH_INDEX_FILTER_PATTERN); a failed template is reported so the stream
 * retries from its record.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { indexSearchBatch } from '../../lib/marketplace/search/search-indexer.ts';
import { observed } from '../../lib/observability/lambda.ts';

export const handler = observed(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const failed = await indexSearchBatch(event.Records);
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
});

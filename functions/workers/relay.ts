/**
 * Table stream → delivery queue. The event source filters to new event rows, replay pages and
 * version notice pages (lib/events/stream-filter.ts); the notice pages go to the lifecycle room,
 * which tells a template's installers through the outbox (their event rows come back through here).
 * Failed records are reported so the stream retries from the earliest of them.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { relayBatch } from '../../lib/events/relay.ts';
import { isNoticePage, noticeBatch } from '../../lib/marketplace/lifecycle/notice-batch.ts';
import { observed } from '../../lib/observability/lambda.ts';

export const handler = observed(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const notices = event.Records.filter(isNoticePage);
  const failed = [
    ...(await relayBatch(event.Records.filter((r) => !isNoticePage(r)))),
    ...(await noticeBatch(notices)),
  ];
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
});

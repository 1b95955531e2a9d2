/**
 * Table stream → delivery queue and push worker. The event source filters to new event rows, gap
 * markers, replay pages and version notice pages (lib/events/stream-filter.ts, RELAY_STREAM_FILTERS).
 * The new feed slots go to the push worker first (one asynchronous invoke: lib/events/push-hand-off.ts),
 * so a push waits for no delivery work; the deliverable events to the delivery queue; the notice
 * pages to the lifecycle room, which tells a template's installers through the outbox (their event
 * rows come back through here). Failed records are reported so the stream retries from the earliest of them.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { handOffToPush } from '../../lib/events/push-hand-off.ts';
import { relayBatch } from '../../lib/events/relay.ts';
import { isNoticePage, noticeBatch } from '../../lib/marketplace/lifecycle/notice-batch.ts';
import { observed } from '../../lib/observability/lambda.ts';

export const handler = observed(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const notices = event.Records.filter(isNoticePage);
  const [handOffFailed, relayFailed] = await Promise.all([
    handOffToPush(event.Records),
    (async () => [
      ...(await relayBatch(event.Records.filter((r) => !isNoticePage(r)))),
      ...(await noticeBatch(notices)),
    ])(),
  ]);
  return { batchItemFailures: [...handOffFailed, ...relayFailed].map((itemIdentifier) => ({ itemIdentifier })) };
});

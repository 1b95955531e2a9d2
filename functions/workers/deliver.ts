/**
 * Delivery queue → the agents' webhook endpoints. Messages due again later are reported as
 * batch item failures after their visibility was set to the next retry delay; Lambda deletes the rest.
 * The queue also carries the delayed flushes of templates' waiting version notices
 * (lib/marketplace/lifecycle/notice-flush.ts), which go to the lifecycle room.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverBatch } from '../../lib/events/delivery/deliver-batch.ts';
import { isNoticeFlush, noticeFlushBatch } from '../../lib/marketplace/lifecycle/notice-flush.ts';
import { observed } from '../../lib/observability/lambda.ts';

export const handler = observed(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const flushes = event.Records.filter(isNoticeFlush);
  const keep = [
    ...(await deliverBatch(event.Records.filter((r) => !isNoticeFlush(r)))),
    ...(await noticeFlushBatch(flushes)),
  ];
  return { batchItemFailures: keep.map((itemIdentifier) => ({ itemIdentifier })) };
});

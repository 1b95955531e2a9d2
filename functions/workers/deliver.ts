/**
 * Delivery queue → the agents' webhook endpoints. Messages due again later are reported as
 * batch item failures after their visibility was set to the next retry delay; Lambda deletes the rest.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverBatch } from '../../lib/events/delivery/deliver-batch.ts';
import { observed } from '../../lib/observability/lambda.ts';

export const handler = observed(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const keep = await deliverBatch(event.Records);
  return { batchItemFailures: keep.map((itemIdentifier) => ({ itemIdentifier })) };
});

import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverBatch } from '../../lib/events/deliver.ts';

/**
 * Delivery queue → the agents' webhook endpoints. Messages due again later are reported as
 * batch item failures after their visibility was set to the next retry delay.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return deliverBatch(event.Records);
}

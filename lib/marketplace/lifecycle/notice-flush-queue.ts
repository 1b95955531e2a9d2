/**
 * The flush of a template's waiting notices (notice-flush.ts) is a delayed message on the delivery
 * queue: the relay sends it when a notice starts to wait, the delivery worker takes it when the
 * delay is over (functions/workers/deliver.ts hands it here, not to the deliveries). SQS delays a
 * message by at most 900 s, which bounds the notice window (NOTICE_WINDOW_SECONDS ≤ 880).
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { deliveryQueueUrl, sqs } from '../../events/delivery/queue.ts';
import type { NoticeFlush } from './notice-flush-message.ts';

/** SQS's most (fauxqs does not enforce it, so the window's own cap keeps every delay within it). */
export const MAX_DELAY_SECONDS = 900;

/** Whole seconds, rounded up (never early), within what SQS takes. */
export const flushDelaySeconds = (delayMs: number): number =>
  Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delayMs / 1000)));

export async function sendNoticeFlush(flush: NoticeFlush, delayMs: number): Promise<void> {
  const DelaySeconds = flushDelaySeconds(delayMs);
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: deliveryQueueUrl(),
      MessageBody: JSON.stringify({ notice_flush: flush }),
      DelaySeconds,
    }),
  );
}

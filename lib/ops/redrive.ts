/**
 * Moves every message of a dead-letter queue back to its source queue, ten at a time: each batch
 * is sent first and deleted from the DLQ only once SQS accepted it, so a crash in between can
 * duplicate a message (deliveries are idempotent per record) but never lose one. Messages the
 * source refused stay in the DLQ and are counted apart.
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';

export interface RedriveResult {
  moved: number;
  failed: number;
}

export async function redrive(
  client: SQSClient,
  fromUrl: string,
  toUrl: string,
  options: { max?: number } = {},
): Promise<RedriveResult> {
  const max = options.max ?? Number.POSITIVE_INFINITY;
  const result: RedriveResult = { moved: 0, failed: 0 };
  // Failed messages stay invisible in the DLQ for this long, so the loop ends instead of retrying them.
  const hideSeconds = 300;
  while (result.moved + result.failed < max) {
    const want = Math.min(10, max - result.moved - result.failed);
    const { Messages } = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: fromUrl,
        MaxNumberOfMessages: want,
        WaitTimeSeconds: 1,
        VisibilityTimeout: hideSeconds,
        MessageAttributeNames: ['All'],
      }),
    );
    if (!Messages?.length) break;
    const byId = new Map<string, Message>(Messages.map((m, i) => [String(i), m]));
    const sent = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: toUrl,
        Entries: [...byId].map(([id, m]) => ({
          Id: id,
          MessageBody: m.Body ?? '',
          ...(m.MessageAttributes && Object.keys(m.MessageAttributes).length
            ? { MessageAttributes: m.MessageAttributes }
            : {}),
        })),
      }),
    );
    const ok = (sent.Successful ?? []).map((s) => byId.get(s.Id!)!).filter(Boolean);
    result.failed += sent.Failed?.length ?? 0;
    if (ok.length) {
      await client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: fromUrl,
          Entries: ok.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
      result.moved += ok.length;
    }
  }
  return result;
}

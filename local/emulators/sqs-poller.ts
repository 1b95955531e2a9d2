/**
 * The local SQS event source mapping: long-polls the queue, invokes the handler with a real
 * SQSEvent, deletes the messages that are not reported in `batchItemFailures` (partial batch
 * responses), and leaves the failures to come back when their visibility runs out. A handler
 * that throws fails the whole batch, as in Lambda.
 */
import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { DELIVERY } from '../../lib/core/settings.ts';
import { log } from '../../lib/observability/log.ts';

export interface SqsPollerOptions {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  handler: (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;
  batchSize?: number;
  /** Parallel pollers, like the concurrent batches of the Lambda event source. */
  concurrency?: number;
  /** Long-poll wait; short so stop() is quick. */
  waitSeconds?: number;
}

export function toSqsRecord(message: Message, queueArn: string): SQSRecord {
  const a = message.Attributes ?? {};
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: a.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: queueArn.split(':')[3] ?? 'us-east-1',
  };
}

export function startSqsPoller(options: SqsPollerOptions): { stop(): Promise<void> } {
  const {
    client,
    queueUrl,
    queueArn,
    handler,
    batchSize = DELIVERY.batchSize,
    concurrency = 2,
    waitSeconds = 1,
  } = options;
  const abort = new AbortController();

  async function once(): Promise<void> {
    const { Messages = [] } = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: batchSize,
        WaitTimeSeconds: waitSeconds,
        MessageSystemAttributeNames: ['All'],
      }),
      { abortSignal: abort.signal },
    );
    if (Messages.length === 0) return;
    const records = Messages.map((m) => toSqsRecord(m, queueArn));
    let failed: Set<string>;
    try {
      const result = await handler({ Records: records });
      failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (err) {
      log.error('sqs poller: handler threw', { error: err instanceof Error ? err.message : String(err) });
      return;
    }
    const done = records.filter((r) => !failed.has(r.messageId));
    if (done.length === 0) return;
    await client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
      }),
    );
  }

  async function loop(): Promise<void> {
    while (!abort.signal.aborted) {
      try {
        await once();
      } catch (err) {
        if (abort.signal.aborted) break;
        log.error('sqs poller: receive failed', { error: err instanceof Error ? err.message : String(err) });
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  const loops = Array.from({ length: concurrency }, loop);
  return {
    stop: async () => {
      abort.abort();
      await Promise.all(loops);
    },
  };
}

/**
 * The local outbox pipeline: table stream → relay → SQS (fauxqs) → delivery, and table stream →
 * search indexer: the stream's two readers, as deployed. The relay hands new feed slots to the push
 * worker by an asynchronous invoke, when one runs (LAMBDA_ENDPOINT and PUSH_FUNCTION_NAME, set by
 * local/emulators/push-worker.ts or push-thread.ts; without them it hands nothing over). The very
 * handlers Lambda runs (functions/workers/*) run behind event-source pollers. With a data folder the
 * queue (fauxqs persistence) and the stream position (a checkpoint file) survive a restart, so an
 * event committed while the process was down is still delivered.
 *
 * It sets SQS_ENDPOINT and DELIVERY_QUEUE_URL for the handlers of this process; the handlers
 * read TABLE_NAME and DYNAMODB_ENDPOINT as usual.
 */

import { join } from 'node:path';
import type { _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DELIVERY, STREAM } from '../../lib/core/settings.ts';
import { matchesAnyFilter, matchesFilter, RELAY_STREAM_FILTERS } from '../../lib/events/stream-filter.ts';
import { SEARCH_INDEX_FILTER_PATTERN } from '../../lib/marketplace/search/search-indexer.ts';
import { workers } from '../../lib/routes.ts';
import { streamArn } from '../../lib/store/create-table.ts';
import { lambdaContext } from '../lambda/context.ts';
import { runAsWorker } from '../lambda/grants.ts';
import { loadHandler } from '../lambda/handlers.ts';
import { createDeliveryQueues, fauxqsDataDir, startLocalSqs } from './sqs.ts';
import { startSqsPoller } from './sqs-poller.ts';
import { startStreamPoller } from './stream-poller.ts';

export interface EventPipelineOptions {
  tableName: string;
  dynamoEndpoint: string;
  /** An SQS-compatible endpoint to use instead of starting fauxqs. */
  sqsEndpoint?: string;
  /** undefined or ':memory:' keeps queue and checkpoint in memory. */
  dataDir?: string;
  /** Where the SQS emulator listens (default loopback). */
  host?: string;
  /** Defaults are the deployed queue's (DELIVERY). */
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
  /** Concurrent delivery batches. */
  concurrency?: number;
  /** Hears each page the relay's poller read from the stream (a bench's trace). */
  onRelayRead?: (records: readonly StreamRecord[]) => void;
}

export interface EventPipeline {
  queueUrl: string;
  deadLetterQueueUrl: string;
  sqsEndpoint: string;
  stop(): Promise<void>;
}

export async function startEventPipeline(options: EventPipelineOptions): Promise<EventPipeline> {
  const dataDir = options.dataDir && options.dataDir !== ':memory:' ? options.dataDir : undefined;
  const sqs = await startLocalSqs({
    ...(options.sqsEndpoint ? { endpoint: options.sqsEndpoint } : {}),
    ...(dataDir ? { dataDir: fauxqsDataDir(dataDir) } : {}),
    ...(options.host ? { host: options.host } : {}),
  });
  const queues = await createDeliveryQueues(sqs.client, options.tableName, {
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? DELIVERY.visibilityTimeoutSeconds,
    maxReceiveCount: options.maxReceiveCount ?? DELIVERY.maxReceiveCount,
  });
  // The destinations' queue: customers' AWS destinations have their own worker (lib/events/delivery/destination-queue.ts).
  const destinationQueues = await createDeliveryQueues(sqs.client, `${options.tableName}-destinations`, {
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? DELIVERY.visibilityTimeoutSeconds,
    maxReceiveCount: options.maxReceiveCount ?? DELIVERY.maxReceiveCount,
  });
  process.env['SQS_ENDPOINT'] = sqs.endpoint;
  process.env['DELIVERY_QUEUE_URL'] = queues.queueUrl;
  process.env['DESTINATION_QUEUE_URL'] = destinationQueues.queueUrl;

  const relay = await loadHandler<(e: DynamoDBStreamEvent, c: unknown) => Promise<DynamoDBBatchResponse>>(
    workers.relay,
  );
  const deliver = await loadHandler<(e: SQSEvent, c: unknown) => Promise<SQSBatchResponse>>(workers.deliver);
  const deliverToDestinations = await loadHandler<(e: SQSEvent, c: unknown) => Promise<SQSBatchResponse>>(
    workers.deliverToDestinations,
  );
  const stream = startStreamPoller({
    endpoint: options.dynamoEndpoint,
    streamArn: await streamArn(options.tableName),
    handler: (event) => runAsWorker('relay', () => relay(event, lambdaContext('relay', STREAM.workerTimeoutSeconds))),
    // The relay's event source filters, as in infra/workers-stack.ts.
    filter: (record) => matchesAnyFilter(record, RELAY_STREAM_FILTERS),
    ...(options.onRelayRead ? { onRead: options.onRelayRead } : {}),
    ...(dataDir ? { checkpointFile: join(dataDir, `stream-checkpoint-${options.tableName}.json`) } : {}),
  });
  // The second consumer of the stream, beside the relay: template changes → search index.
  const searchIndexer = await loadHandler<(e: DynamoDBStreamEvent, c: unknown) => Promise<DynamoDBBatchResponse>>(
    workers.searchIndexer,
  );
  const searchStream = startStreamPoller({
    endpoint: options.dynamoEndpoint,
    streamArn: await streamArn(options.tableName),
    handler: (event) =>
      runAsWorker('searchIndexer', () =>
        searchIndexer(event, lambdaContext('searchIndexer', STREAM.workerTimeoutSeconds)),
      ),
    filter: (record) => matchesFilter(record, SEARCH_INDEX_FILTER_PATTERN),
    ...(dataDir ? { checkpointFile: join(dataDir, `search-index-checkpoint-${options.tableName}.json`) } : {}),
  });
  const sqsPoller = startSqsPoller({
    client: sqs.client,
    queueUrl: queues.queueUrl,
    queueArn: queues.queueArn,
    handler: (event) =>
      runAsWorker('deliver', () => deliver(event, lambdaContext('deliver', DELIVERY.functionTimeoutSeconds))),
    concurrency: options.concurrency ?? 2,
  });
  const destinationPoller = startSqsPoller({
    client: sqs.client,
    queueUrl: destinationQueues.queueUrl,
    queueArn: destinationQueues.queueArn,
    handler: (event) =>
      runAsWorker('deliverToDestinations', () =>
        deliverToDestinations(event, lambdaContext('deliverToDestinations', DELIVERY.functionTimeoutSeconds)),
      ),
    concurrency: 1,
  });
  return {
    queueUrl: queues.queueUrl,
    deadLetterQueueUrl: queues.deadLetterQueueUrl,
    sqsEndpoint: sqs.endpoint,
    stop: async () => {
      await Promise.all([stream.stop(), searchStream.stop(), sqsPoller.stop(), destinationPoller.stop()]);
      await sqs.stop();
    },
  };
}

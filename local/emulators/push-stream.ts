/**
 * The push worker's event source mapping, locally: the table's stream, filtered with the CDK
 * event source's pattern (PUSH_FILTER_PATTERN) and its ParallelizationFactor (PUSH.streamParallelization:
 * batches of different agents in the worker at once), into functions/workers/push.ts inside its grant.
 * A third reader of the stream beside the relay and the search indexer (docs/events.md, "Push"
 * says what that costs in AWS). The functions post to PUSH_CONNECTIONS_ENDPOINT: the local API's
 * own URL, where local/gateway/push-gateway.ts serves @connections.
 */
import { join } from 'node:path';
import type { _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { PUSH } from '../../lib/core/settings.ts';
import { PUSH_FILTER_PATTERN } from '../../lib/events/push/push-batch.ts';
import { matchesFilter } from '../../lib/events/stream-filter.ts';
import { workers } from '../../lib/routes.ts';
import { streamArn } from '../../lib/store/create-table.ts';
import { lambdaContext } from '../lambda/context.ts';
import { runAsWorker } from '../lambda/grants.ts';
import { loadHandler } from '../lambda/handlers.ts';
import { startStreamPoller } from './stream-poller.ts';

export interface PushStreamOptions {
  tableName: string;
  dynamoEndpoint: string;
  /** The local API's URL (its @connections API). */
  connectionsEndpoint: string;
  /** Where the stream checkpoint is kept; in memory when absent. */
  dataDir?: string | undefined;
  /** A bench's trace: each page the poller read, and each batch as the worker is handed it. */
  trace?: {
    read(records: readonly StreamRecord[]): void;
    handed(event: DynamoDBStreamEvent): void;
  };
}

export async function startPushStream(options: PushStreamOptions): Promise<{ stop(): Promise<void> }> {
  process.env['PUSH_CONNECTIONS_ENDPOINT'] = options.connectionsEndpoint;
  const push = await loadHandler<(e: DynamoDBStreamEvent, c: unknown) => Promise<DynamoDBBatchResponse>>(workers.push);
  return startStreamPoller({
    endpoint: options.dynamoEndpoint,
    streamArn: await streamArn(options.tableName),
    handler: (event) => {
      options.trace?.handed(event);
      return runAsWorker('push', () => push(event, lambdaContext('push', PUSH.functionTimeoutSeconds)));
    },
    filter: (record) => matchesFilter(record, PUSH_FILTER_PATTERN),
    parallelization: PUSH.streamParallelization,
    ...(options.trace ? { onRead: options.trace.read } : {}),
    ...(options.dataDir ? { checkpointFile: join(options.dataDir, `push-checkpoint-${options.tableName}.json`) } : {}),
  });
}

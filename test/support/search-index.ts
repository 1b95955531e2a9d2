import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { endpointOverride } from '../../lib/aws-endpoint.ts';
import { matchesFilter } from '../../lib/events/stream-filter.ts';
import { SEARCH_INDEX_FILTER_PATTERN } from '../../lib/marketplace/search/search-indexer.ts';
import { streamArn } from '../../lib/store/create-table.ts';
import { handler } from '../../functions/workers/search-indexer.ts';
import { toLambdaRecord } from '../../local/stream-poller.ts';

/**
 * The search indexer as the stream would run it, on demand: hands every record of this file's table
 * stream written since the last call (filtered like the event source) to the worker handler, in
 * order. Tests call it where the deployed service would have its stream consumer catch up.
 */
const done = new Map<string, string>();
let client: DynamoDBStreamsClient | undefined;

export async function streamRecordsSinceLastCall(): Promise<DynamoDBRecord[]> {
  client ??= new DynamoDBStreamsClient(endpointOverride(process.env['DYNAMODB_ENDPOINT']!));
  const arn = await streamArn(process.env['TABLE_NAME']!);
  const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: arn }));
  const records: DynamoDBRecord[] = [];
  for (const shard of StreamDescription?.Shards ?? []) {
    const shardId = shard.ShardId!;
    const after = done.get(shardId);
    let { ShardIterator: iterator } = await client.send(
      new GetShardIteratorCommand({ StreamArn: arn, ShardId: shardId, ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }) }),
    );
    while (iterator) {
      const page = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      const got = page.Records ?? [];
      if (got.length === 0) break;
      records.push(...got.map((r) => toLambdaRecord(r, arn)));
      done.set(shardId, got.at(-1)!.dynamodb!.SequenceNumber!);
      iterator = page.NextShardIterator;
    }
  }
  return records;
}

/** Runs the search indexer over the new stream records; throws if it reports a failure. */
export async function indexSearch(): Promise<void> {
  const records = (await streamRecordsSinceLastCall()).filter((r) => matchesFilter(r, SEARCH_INDEX_FILTER_PATTERN));
  for (let i = 0; i < records.length; i += 100) {
    const result = await handler({ Records: records.slice(i, i + 100) });
    if (result.batchItemFailures.length) throw new Error(`search indexer failed: ${JSON.stringify(result.batchItemFailures)}`);
  }
}

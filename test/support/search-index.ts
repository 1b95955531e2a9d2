import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { handler } from '../../functions/workers/search-indexer.ts';
import { clientScope, endpointOverride } from '../../lib/aws-endpoint.ts';
import { matchesFilter } from '../../lib/events/stream-filter.ts';
import { indexedState, ORDERS, searchIndexItems } from '../../lib/marketplace/search/search-index.ts';
import { SEARCH_INDEX_FILTER_PATTERN } from '../../lib/marketplace/search/search-indexer.ts';
import { counterMove } from '../../lib/marketplace/search/store.ts';
import type { TemplateItem } from '../../lib/marketplace/templates/template-item.ts';
import { batchWrite } from '../../lib/store/batch.ts';
import { db, tableName } from '../../lib/store/client.ts';
import { streamArn } from '../../lib/store/create-table.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { transactWrite } from '../../lib/store/transact.ts';
import { toLambdaRecord } from '../../local/emulators/stream-poller.ts';

/**
 * The search indexer as the stream would run it, on demand: hands every record of this file's table
 * stream written since the last call (filtered like the event source) to the worker handler, in
 * order. Tests call it where the deployed service would have its stream consumer catch up.
 */
const done = new Map<string, string>();
/** A client per endpoint and database (the access key id picks it): a worker runs many files. */
const clients = new Map<string, DynamoDBStreamsClient>();

export async function streamRecordsSinceLastCall(): Promise<DynamoDBRecord[]> {
  const endpoint = process.env['DYNAMODB_ENDPOINT']!;
  const clientKey = clientScope(endpoint);
  let client = clients.get(clientKey);
  if (!client) {
    client = new DynamoDBStreamsClient(endpointOverride(endpoint));
    clients.set(clientKey, client);
  }
  const arn = await streamArn(process.env['TABLE_NAME']!);
  const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: arn }));
  const records: DynamoDBRecord[] = [];
  for (const shard of StreamDescription?.Shards ?? []) {
    const shardId = shard.ShardId!;
    const after = done.get(`${arn} ${shardId}`);
    let { ShardIterator: iterator } = await client.send(
      new GetShardIteratorCommand({
        StreamArn: arn,
        ShardId: shardId,
        ...(after
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
          : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    while (iterator) {
      const page = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      const got = page.Records ?? [];
      if (got.length === 0) break;
      records.push(...got.map((r) => toLambdaRecord(r, arn)));
      done.set(`${arn} ${shardId}`, got.at(-1)!.dynamodb!.SequenceNumber!);
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
    if (result.batchItemFailures.length)
      throw new Error(`search indexer failed: ${JSON.stringify(result.batchItemFailures)}`);
  }
}

const keyOf = (item: Record<string, unknown>) => `${item['PK']}|${item['SK']}`;

/**
 * The postings (in all three orders) and word pairs of a template's `index` (searchIndexItems) on
 * the catalog-wide lists of `prefixes`:
 * what a search driven by those prefixes walks. Tests that seed hundreds of templates straight into
 * the table write only these; a template's whole index is about 55 items, and DynamoDB Local spends
 * milliseconds of CPU on each.
 */
export function indexItemsOn(
  index: ReturnType<typeof searchIndexItems>,
  prefixes: readonly string[],
): Record<string, unknown>[] {
  const partitions = new Set(
    prefixes.flatMap((p) => [
      ...ORDERS.map((o) => keys.searchPostingPk(o, p)),
      keys.searchPairPk(p),
      keys.searchWidePk(p),
    ]),
  );
  return [...index.postings, ...index.pairs].filter((i) => partitions.has(i['PK'] as string));
}

/** What the index should hold for `t` (postings and word pairs), as sorted `PK|SK`. */
export const wantedIndexItems = (t: TemplateItem): string[] => {
  const index = searchIndexItems(t);
  return [...index.postings, ...index.pairs].map(keyOf).sort();
};

/** Every posting and word pair of template `id` on the partitions any of the given states of it (as if public) would use, as sorted `PK|SK`. */
export async function indexItemsOf(id: string, states: TemplateItem[]): Promise<string[]> {
  const partitions = new Set(
    states.flatMap((s) => {
      const lists = indexedState({ ...s, visibility: 'public' }).lists;
      const prefixes = lists.filter((l) => !l.includes('/')); // the catalog-wide lists: word pairs are kept for those
      return [
        ...lists.flatMap((l) => ORDERS.map((o) => keys.searchPostingPk(o, l))),
        ...prefixes.flatMap((p) => [keys.searchPairPk(p), keys.searchWidePk(p)]),
      ];
    }),
  );
  const found: string[] = [];
  for (const pk of partitions) {
    const { Items = [] } = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
      }),
    );
    found.push(...Items.filter((i) => i['template_id'] === id).map(keyOf));
  }
  return found.sort();
}

/**
 * Puts `templates` straight into the table as the indexer would have left them: each template and
 * its index state, the postings and word pairs on the lists of `prefixes` only (indexItemsOn), and
 * every list's counter added to, in transactions of 100 (one update per counter would be a request
 * each). What the test wrote before is indexed first, and the seed's own stream records are skipped.
 */
export async function seedIndexed(templates: TemplateItem[], prefixes: readonly string[]): Promise<void> {
  await indexSearch();
  const counts = new Map<string, number>();
  const items = templates.flatMap((t) => {
    const index = searchIndexItems(t);
    for (const list of index.counted) counts.set(list, (counts.get(list) ?? 0) + 1);
    return [t as unknown as Record<string, unknown>, index.state, ...indexItemsOn(index, prefixes)];
  });
  await batchWrite(items.map((put) => ({ put })));
  const moves = [...counts].map(([list, by]) => counterMove({ list, by }));
  for (let i = 0; i < moves.length; i += 100) {
    const written = await transactWrite(moves.slice(i, i + 100));
    if (!written.ok) throw new Error(`search counters not written: ${written.reasons.join(', ')}`);
  }
  await streamRecordsSinceLastCall();
}

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { ensureTable } from '../../lib/store/create-table.ts';
import { reindexIfBehind } from '../../lib/marketplace/search/reindex.ts';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local.ts';
import { freePort } from '../../local/ports.ts';

/**
 * Each test file gets a DynamoDB Local of its own (in memory) with a fresh table, started before
 * the file's own hooks and stopped after them; child processes the file spawns inherit the
 * endpoint. One shared DynamoDB Local for the whole run (as before) grew slower over a run: late
 * files that race dozens of writers on one item (50 installs, 50 reviews, the feed's integrity
 * race) met lock-wait 500s and multi-second stalls there that the same files never met on a fresh
 * one, and DynamoDB does not have. A fresh one costs about 2.5 s per file.
 */
process.env['TABLE_NAME'] = `test-${randomUUID()}`;
process.env['AWS_REGION'] ??= 'us-east-1';
process.env['LOG_LEVEL'] ??= 'silent';

let dynamo: DynamoDbLocal | undefined;

beforeAll(async () => {
  dynamo = await startDynamoDbLocal({ port: await freePort(), dataDir: ':memory:' });
  process.env['DYNAMODB_ENDPOINT'] = dynamo.endpoint;
  await ensureTable(process.env['TABLE_NAME']!);
  // As after a stage's first deploy and `admin reindex-search`: the new table's (empty) index has the current format.
  await reindexIfBehind();
}, 90_000);

// Registered first, so it runs after the file's own afterAll hooks (pipelines, APIs) have stopped.
afterAll(async () => {
  await dynamo?.stop();
});

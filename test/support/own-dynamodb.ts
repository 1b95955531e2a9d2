import { afterAll, beforeAll } from 'vitest';
import { ensureTable } from '../../lib/store/create-table.ts';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local.ts';
import { freePort } from '../../local/ports.ts';

/**
 * Gives the test file its own DynamoDB Local (in memory) instead of a table in the run's shared
 * one, for the few files that race dozens of writers on a handful of items: late in a full run
 * the shared DynamoDB Local, which by then has served every earlier file, answered such races with
 * lock-wait errors and multi-second stalls that a fresh one does not show (and DynamoDB does not
 * have). Call it before `useLocalApi()` and anything else that talks to the store in a hook; child
 * processes spawned later inherit the endpoint.
 */
export function useOwnDynamoDbLocal(): void {
  let dynamo: DynamoDbLocal | undefined;
  const shared = process.env['DYNAMODB_ENDPOINT'];
  beforeAll(async () => {
    dynamo = await startDynamoDbLocal({ port: await freePort(), dataDir: ':memory:' });
    process.env['DYNAMODB_ENDPOINT'] = dynamo.endpoint;
    await ensureTable(process.env['TABLE_NAME']!);
  }, 60_000);
  afterAll(async () => {
    // Back to the shared one, where the run's per-file cleanup looks for this file's table.
    process.env['DYNAMODB_ENDPOINT'] = shared;
    await dynamo?.stop();
  });
}

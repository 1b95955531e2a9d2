import { tableName } from '../lib/store/client.ts';
import { ensureTable } from '../lib/store/create-table.ts';
import { type DynamoDbLocal, startDynamoDbLocal } from '../local/emulators/dynamodb-local.ts';
import { freePort } from '../local/ports.ts';

/**
 * Runs one bench against a DynamoDB Local of its own (in memory) with a fresh table, which the
 * environment points the handlers at; stops it afterwards, whatever `fn` did. `fn` is given the
 * emulator (a bench reads its CPU time).
 */
export async function withBenchStore<T>(name: string, fn: (dynamo: DynamoDbLocal) => Promise<T>): Promise<T> {
  const dynamo = await startDynamoDbLocal({ port: await freePort(), dataDir: ':memory:' });
  try {
    process.env['DYNAMODB_ENDPOINT'] = dynamo.endpoint;
    process.env['TABLE_NAME'] = `bench-${name}-${Date.now()}`;
    await ensureTable(tableName());
    return await fn(dynamo);
  } finally {
    await dynamo.stop();
  }
}

import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, inject } from 'vitest';
import { db } from '../../lib/store/client.ts';
import { ensureTable } from '../../lib/store/create-table.ts';

// Each test file works in a fresh table of the shared DynamoDB Local, so files never see each
// other's data and can run in parallel.
process.env['DYNAMODB_ENDPOINT'] = inject('dynamoEndpoint');
process.env['TABLE_NAME'] = `test-${randomUUID()}`;
process.env['AWS_REGION'] ??= 'us-east-1';
process.env['LOG_LEVEL'] ??= 'silent';

beforeAll(async () => {
  await ensureTable(process.env['TABLE_NAME']!);
});

// Registered first, so it runs after the file's own afterAll hooks (pipelines, APIs) have stopped:
// a table no test reads any more leaves the shared DynamoDB Local, which stays small over the run.
afterAll(async () => {
  await db().send(new DeleteTableCommand({ TableName: process.env['TABLE_NAME']! })).catch(() => undefined);
});

import { randomUUID } from 'node:crypto';
import { beforeAll, inject } from 'vitest';
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

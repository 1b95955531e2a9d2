import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../local/dynamodb-local.ts';
import { freePort } from '../../local/ports.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/** One real DynamoDB Local for the whole run; every test file gets its own table in it. */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamoDbLocal({ port: await freePort(), dataDir: ':memory:' });
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}

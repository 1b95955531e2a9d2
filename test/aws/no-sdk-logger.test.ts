import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { SDK_LOGGER_MIDDLEWARE, withoutSdkLogger } from '../../lib/aws/no-sdk-logger.ts';

const names = (client: { middlewareStack: { identify(): string[] } }) =>
  client.middlewareStack.identify().map((entry) => entry.split(' ')[0]);

describe('withoutSdkLogger', () => {
  it.each([
    ['DynamoDB', () => new DynamoDBClient({ region: 'us-east-1' })],
    ['DynamoDB Streams', () => new DynamoDBStreamsClient({ region: 'us-east-1' })],
    ['SQS', () => new SQSClient({ region: 'us-east-1' })],
  ])("takes the SDK's logger middleware off the %s client (there, by that name, before)", (_, make) => {
    const client = make();
    expect(names(client)).toContain(SDK_LOGGER_MIDDLEWARE);
    expect(names(withoutSdkLogger(client))).not.toContain(SDK_LOGGER_MIDDLEWARE);
  });
});

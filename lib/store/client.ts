/**
 * One DynamoDB document client per endpoint and process, made on first use (Lambda reuses it
 * across invocations). DYNAMODB_ENDPOINT points it at DynamoDB Local; in AWS it is unset. A
 * process that alternates between endpoints (the marketplace benchmark's two DynamoDB Local
 * processes) keeps one warm client, with its open connections, per endpoint. Its calls honour
 * the deadline of the request that makes them (call-deadline.ts).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsClientMade } from '../aws/client-hooks.ts';
import { withoutSdkLogger } from '../aws/no-sdk-logger.ts';
import { clientScope, endpointOverride } from '../aws-endpoint.ts';
import { setting } from '../core/environment.ts';
import { applyCallDeadlines } from './call-deadline.ts';

const clients = new Map<string, DynamoDBDocumentClient>();

export function db(): DynamoDBDocumentClient {
  const endpoint = setting('DYNAMODB_ENDPOINT');
  const key = clientScope(endpoint);
  let client = clients.get(key);
  if (!client) {
    const raw = withoutSdkLogger(new DynamoDBClient(endpointOverride(endpoint)));
    applyCallDeadlines(raw.config);
    awsClientMade(raw, 'dynamodb');
    client = DynamoDBDocumentClient.from(raw, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
    clients.set(key, client);
  }
  return client;
}

/** Read per call so tests can give each file its own table. */
export function tableName(): string {
  const name = setting('TABLE_NAME');
  if (!name) throw new Error('TABLE_NAME is not set');
  return name;
}

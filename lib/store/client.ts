import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { endpointOverride } from '../aws-endpoint.ts';
import { awsClientMade } from '../aws/client-hooks.ts';

/**
 * One DynamoDB document client per endpoint and process, made on first use (Lambda reuses it
 * across invocations). DYNAMODB_ENDPOINT points it at DynamoDB Local; in AWS it is unset. A
 * process that alternates between endpoints (the marketplace benchmark's two DynamoDB Local
 * processes) keeps one warm client, with its open connections, per endpoint.
 */
const clients = new Map<string, DynamoDBDocumentClient>();

export function db(): DynamoDBDocumentClient {
  const endpoint = process.env['DYNAMODB_ENDPOINT'] || undefined;
  let client = clients.get(endpoint ?? '');
  if (!client) {
    const raw = new DynamoDBClient(endpointOverride(endpoint));
    awsClientMade(raw, 'dynamodb');
    client = DynamoDBDocumentClient.from(raw, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
    clients.set(endpoint ?? '', client);
  }
  return client;
}

/** Read per call so tests can give each file its own table. */
export function tableName(): string {
  const name = process.env['TABLE_NAME'];
  if (!name) throw new Error('TABLE_NAME is not set');
  return name;
}

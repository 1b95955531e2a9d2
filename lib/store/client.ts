import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * One DynamoDB document client per process, made on first use (Lambda reuses it across
 * invocations). DYNAMODB_ENDPOINT points it at DynamoDB Local; in AWS it is unset.
 */
let client: DynamoDBDocumentClient | undefined;
let clientEndpoint: string | undefined;

export function db(): DynamoDBDocumentClient {
  const endpoint = process.env['DYNAMODB_ENDPOINT'] || undefined;
  if (!client || clientEndpoint !== endpoint) {
    const local = endpoint !== undefined;
    const raw = new DynamoDBClient({
      ...(local
        ? {
            endpoint,
            region: process.env['AWS_REGION'] ?? 'us-east-1',
            credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
          }
        : {}),
      maxAttempts: 5,
    });
    client = DynamoDBDocumentClient.from(raw, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
    clientEndpoint = endpoint;
  }
  return client;
}

/** Read per call so tests can give each file its own table. */
export function tableName(): string {
  const name = process.env['TABLE_NAME'];
  if (!name) throw new Error('TABLE_NAME is not set');
  return name;
}

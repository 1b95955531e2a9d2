/**
 * Decorators for the AWS SDK clients this process makes. Lambda installs none (IAM refuses what a
 * role lacks); the local runtime installs its stand-in for IAM here (local/lambda/grant-guard.ts), so
 * that code stays out of the function bundles.
 */
import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';

/** The IAM service prefix of each client's actions (`execute-api`: the push channel's @connections). */
export type AwsService = 'dynamodb' | 'sqs' | 'execute-api';
export type AwsClient = DynamoDBClient | SQSClient | ApiGatewayManagementApiClient;
type Decorate = (client: AwsClient, service: AwsService) => void;

const decorators: Decorate[] = [];
const made: Array<[AwsClient, AwsService]> = [];

/** Applies `decorate` to every client made so far and to every one made later. */
export function decorateAwsClients(decorate: Decorate): void {
  decorators.push(decorate);
  for (const [client, service] of made) decorate(client, service);
}

/** Called once by the module that makes a client. */
export function awsClientMade(client: AwsClient, service: AwsService): void {
  made.push([client, service]);
  for (const decorate of decorators) decorate(client, service);
}

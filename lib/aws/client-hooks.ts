/**
 * Decorators for the AWS SDK clients this process makes, and hooks on the calls it makes without
 * one (signed-request.ts). Lambda installs none (IAM refuses what a role lacks); the local runtime
 * installs its stand-in for IAM here (local/lambda/grant-guard.ts), so that code stays out of the
 * function bundles.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';

/** The IAM service prefix of each call's actions (`execute-api`: the push channel's @connections). */
/**
 * `cloudformation`, `ssm`: the operator scripts' reads (scripts/stack-outputs.ts,
 * scripts/preflight.ts), never a function's; `lambda`: those scripts' reads, and the relay's
 * hand-off to the push worker (lib/events/push-hand-off.ts).
 */
export type AwsService = 'dynamodb' | 'sqs' | 'execute-api' | 'kms' | 'sts' | 'cloudformation' | 'lambda' | 'ssm';
export type AwsClient = DynamoDBClient | SQSClient;
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

/**
 * Sees a call made without an SDK client before it is sent: it may refuse it by throwing (the grant
 * guard, as its middleware does on a client), and may return what to run once it is answered.
 */
type WatchCall = (service: AwsService, operation: string, input: unknown) => ((status: number) => void) | undefined;
const watchers: WatchCall[] = [];

export function watchAwsCalls(watch: WatchCall): void {
  watchers.push(watch);
}

/** Called by signed-request.ts before each call; what it returns is called with the answer's status. */
export function awsCallMade(
  service: AwsService,
  operation: string,
  input: unknown,
): ((status: number) => void) | undefined {
  const answered = watchers.map((watch) => watch(service, operation, input)).filter((f) => f !== undefined);
  return answered.length === 0
    ? undefined
    : (status) => {
        for (const f of answered) f(status);
      };
}

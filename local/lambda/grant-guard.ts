/**
 * The local stand-in for IAM: a middleware on the DynamoDB and SQS clients, and a watch on the calls made
 * without a client (lib/aws/signed-request.ts), that refuses, inside a
 * grant scope, any action the scope's grant does not list. The local runtime and the tests run
 * each handler in a scope made from its row of the route table (local/lambda/grants.ts). Installed on
 * every client by importing this module (lib/aws/client-hooks.ts); Lambda never imports it, and
 * IAM does the refusing there.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type AwsClient, type AwsService, decorateAwsClients, watchAwsCalls } from '../../lib/aws/client-hooks.ts';

export interface GrantScope {
  /** The function's name, for the message. */
  name: string;
  allowed: ReadonlySet<string>;
  /** Actions refused in this scope, even those whose error the handler caught. */
  denied: string[];
}

const scopes = new AsyncLocalStorage<GrantScope>();

export function runInGrantScope<T>(scope: GrantScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/** The error AWS answers with, so the handler sees what it would see in Lambda. */
export class AccessDeniedException extends Error {
  override name = 'AccessDeniedException';
}

const TRANSACT_WRITE_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};
/** SQS batch calls are authorised as their single form. */
const SQS_BATCH = /^(SendMessage|DeleteMessage|ChangeMessageVisibility)Batch$/;

/** The IAM actions one call needs: a transaction needs the action of each of its items, as in IAM. */
export function actionsOfCall(service: AwsService, operation: string, input: unknown): string[] {
  // PostToConnection, DeleteConnection and GetConnection are all one IAM action.
  if (service === 'execute-api') return ['execute-api:ManageConnections'];
  // Lambda's Invoke API is authorised as lambda:InvokeFunction.
  if (service === 'lambda' && operation === 'Invoke') return ['lambda:InvokeFunction'];
  if (service === 'sqs') return [`sqs:${operation.replace(SQS_BATCH, '$1')}`];
  // A session with tags needs sts:TagSession beside sts:AssumeRole.
  if (service === 'sts')
    return [
      `sts:${operation}`,
      ...((input as { Tags?: unknown[] } | undefined)?.Tags?.length ? ['sts:TagSession'] : []),
    ];
  if (service !== 'dynamodb') return [`${service}:${operation}`];
  const items = (input as { TransactItems?: Array<Record<string, unknown>> } | undefined)?.TransactItems ?? [];
  if (operation === 'TransactWriteItems')
    return items.flatMap((item) => Object.keys(item).map((kind) => `dynamodb:${TRANSACT_WRITE_ACTIONS[kind] ?? kind}`));
  if (operation === 'TransactGetItems') return ['dynamodb:GetItem'];
  return [`dynamodb:${operation}`];
}

/** Throws, inside a grant scope, when the call needs an action the scope's grant does not list. */
function refuseOutsideGrant(service: AwsService, operation: string, input: unknown): undefined {
  const scope = scopes.getStore();
  if (!scope) return;
  const missing = [...new Set(actionsOfCall(service, operation, input))].filter((action) => !scope.allowed.has(action));
  if (missing.length > 0) {
    scope.denied.push(...missing);
    throw new AccessDeniedException(
      `${scope.name} is not authorized to perform: ${missing.join(', ')} (its row in lib/routes.ts does not grant it)`,
    );
  }
}

/** Adds the guard to a client once, when it is made. */
function guardClient(client: AwsClient, service: AwsService): void {
  (client as DynamoDBClient).middlewareStack.add(
    (next, context) => async (args) => {
      refuseOutsideGrant(service, (context.commandName ?? '').replace(/Command$/, ''), args.input);
      return next(args);
    },
    { step: 'initialize', name: 'localGrantGuard', override: true },
  );
}

decorateAwsClients(guardClient);
// The calls made without an SDK client (lib/aws/signed-request.ts: @connections, KMS, STS, SQS's JSON calls).
watchAwsCalls(refuseOutsideGrant);

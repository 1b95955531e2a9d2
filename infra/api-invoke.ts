/**
 * API Gateway invokes the route functions through one role instead of a Lambda permission per
 * function: a permission is a resource per route (and per method), the role is one for the API.
 * The role may invoke only functions named with the stage's route prefix, which only route
 * functions carry (workers and the authorizer keep generated names).
 */
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import { AwsIntegration, type Integration, ResponseTransferMode } from 'aws-cdk-lib/aws-apigateway';
import { type IRole, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { ROUTE_TIMEOUTS } from '../lib/core/settings.ts';

export const routeFunctionPrefix = (stage: string): string => `template-marketplace-${stage}-route-`;

/** Lambda's limit on a function name. */
const MAX_FUNCTION_NAME = 64;

/** The fixed name of a route's function. */
export function routeFunctionName(stage: string, route: string): string {
  const name = `${routeFunctionPrefix(stage)}${route}`;
  if (name.length > MAX_FUNCTION_NAME)
    throw new Error(
      `Function name "${name}" is longer than Lambda's ${MAX_FUNCTION_NAME} characters: shorten the route's name or the stage's.`,
    );
  return name;
}

export function apiInvokeRole(scope: Construct, stage: string): IRole {
  const role = new Role(scope, 'ApiInvokeRole', {
    assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
    description: 'API Gateway invokes the route functions with this role.',
  });
  const stack = Stack.of(scope);
  role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ['lambda:InvokeFunction'],
      resources: [
        stack.formatArn({
          service: 'lambda',
          resource: 'function',
          resourceName: `${routeFunctionPrefix(stage)}*`,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
    }),
  );
  return role;
}

/** A Lambda proxy integration that invokes `fn` with the API's role (what LambdaIntegration does, minus its permission). */
export function lambdaProxy(fn: IFunction, role: IRole, streaming: boolean): Integration {
  const path = streaming
    ? `2021-11-15/functions/${fn.functionArn}/response-streaming-invocations`
    : `2015-03-31/functions/${fn.functionArn}/invocations`;
  return new AwsIntegration({
    proxy: true,
    service: 'lambda',
    path,
    options: {
      credentialsRole: role,
      ...(streaming
        ? {
            responseTransferMode: ResponseTransferMode.STREAM,
            timeout: Duration.seconds(ROUTE_TIMEOUTS.streamingTimeoutSeconds),
          }
        : {}),
    },
  });
}

/**
 * One area of the API (infra/areas.ts) as a nested stack of the API stack: its routes' functions,
 * API Gateway resources and methods. A route adds its function and method here, plus a resource
 * and its CORS preflight when its path is new: nothing per route elsewhere (roles are shared per
 * grant class, the log group per area, API Gateway invokes through one role, alarms are per area).
 */
import { Duration, NestedStack } from 'aws-cdk-lib';
import { AuthorizationType, type IAuthorizer, type IResource, Resource } from 'aws-cdk-lib/aws-apigateway';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ROUTE_TIMEOUTS } from '../lib/core/settings.ts';
import { type Route, routeGrant } from '../lib/routes.ts';
import { lambdaProxy, routeFunctionName } from './api-invoke.ts';
import { makeFunction } from './lambda-function.ts';
import type { FunctionRoles } from './roles.ts';
import { FUNCTION_MEMORY_MB } from './sizing.ts';
import type { StageConfig } from './stage-config.ts';

export interface AreaStackProps {
  config: StageConfig;
  routes: readonly Route[];
  /** API Gateway resources by path that the API stack owns (the root and the paths above the areas). */
  sharedResources: ReadonlyMap<string, IResource>;
  authorizer: IAuthorizer;
  roles: FunctionRoles;
  invokeRole: IRole;
  logGroup: ILogGroup;
  deliveryQueue: IQueue;
  /** The KMS key of the ed25519 signing keys (routes with `signingKey`). */
  signingKey: IKey;
  destinationQueue: IQueue;
  /** The environment every function gets (infra/api-stack.ts). */
  environment: Record<string, string>;
}

export class AreaStack extends NestedStack {
  constructor(scope: Construct, id: string, props: AreaStackProps) {
    super(scope, id, { description: `Routes of the ${id} area` });
    const { config } = props;
    const resources = new Map(props.sharedResources);
    const resourceFor = (path: string): IResource => {
      let current = resources.get('/')!;
      let soFar = '';
      for (const segment of path.split('/').filter(Boolean)) {
        soFar += `/${segment}`;
        let next = resources.get(soFar);
        if (!next) {
          // The preflight (a mock OPTIONS method) comes with the resource from the API's CORS options.
          next = new Resource(this, `Path${soFar.replace(/[^A-Za-z0-9]/g, '_')}`, {
            parent: current,
            pathPart: segment,
          });
          resources.set(soFar, next);
        }
        current = next;
      }
      return current;
    };

    for (const route of props.routes) {
      const grant = routeGrant(route);
      const handler = makeFunction(
        this,
        config,
        props.environment,
        route.name,
        route.handler,
        {
          role: props.roles.forGrant(grant),
          logGroup: props.logGroup,
          functionName: routeFunctionName(config.name, route.name),
        },
        {
          memorySize: FUNCTION_MEMORY_MB[route.name],
          timeout: Duration.seconds(route.timeoutSeconds ?? ROUTE_TIMEOUTS.defaultTimeoutSeconds),
          ...(route.streaming ? { reservedConcurrency: config.reservedConcurrency.stream } : {}),
          env: {
            ...(route.sendsToQueue
              ? {
                  DELIVERY_QUEUE_URL: props.deliveryQueue.queueUrl,
                  DESTINATION_QUEUE_URL: props.destinationQueue.queueUrl,
                }
              : {}),
            ...(route.signingKey ? { WEBHOOK_SIGNING_KMS_KEY_ID: props.signingKey.keyArn } : {}),
          },
        },
      );
      resourceFor(route.path).addMethod(
        route.method,
        lambdaProxy(handler, props.invokeRole, route.streaming === true),
        route.auth
          ? { authorizer: props.authorizer, authorizationType: AuthorizationType.CUSTOM }
          : { authorizationType: AuthorizationType.NONE },
      );
    }
  }
}

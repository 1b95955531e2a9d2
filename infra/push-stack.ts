/**
 * The push channel (docs/events.md, "Push") as a nested stack of the API stack: the API Gateway
 * WebSocket API and its stage, a function per row of `socketRoutes` (lib/routes.ts) behind its
 * route, and the push worker, which the relay invokes with each stream batch's new feed slots and
 * which posts to the connections through the stage's @connections API. Its own nested stack: the REST areas' budgets stay as they were, and the
 * channel's ~30 resources have a 500-resource stack of their own (docs/deployment.md, the stack table).
 */

import { type CfnElement, Duration, NestedStack, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { LogGroupLogDestination, WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { PUSH } from '../lib/core/settings.ts';
import { socketRouteGrant, socketRoutes, workerGrants, workers } from '../lib/routes.ts';
import { makeFunction, pushFunctionName, sharedLogGroup } from './lambda-function.ts';
import { errorLogFilter } from './log-metrics.ts';
import { nagArnParts } from './nag-arn.ts';
import { FunctionRoles } from './roles.ts';
import type { StageConfig } from './stage-config.ts';

export interface PushStackProps {
  config: StageConfig;
  table: ITable;
  deliveryQueue: IQueue;
  /** Where a push worker invocation that failed after Lambda's retries is kept (infra/state-stack.ts). */
  pushFailures: IQueue;
  /** The environment every function gets (infra/api-stack.ts). */
  environment: Record<string, string>;
}

export class PushStack extends NestedStack {
  /** The channel's functions (routes and worker), for monitoring. */
  readonly functions: Array<{ name: string; fn: IFunction }> = [];
  /** `wss://…/<stage>`: what a client connects to (the client's `pushUrl`). */
  readonly url: string;
  /** The stage's @connections endpoint (the functions' PUSH_CONNECTIONS_ENDPOINT; revoke-key closes connections there). */
  readonly callbackUrl: string;

  constructor(scope: Construct, id: string, props: PushStackProps) {
    super(scope, id, { description: 'Push channel: WebSocket API, its route functions and the push worker' });
    const { config, table } = props;
    const roles = new FunctionRoles(this, 'Roles', table, [props.deliveryQueue]);
    const logGroup = sharedLogGroup(this, 'PushLogs', config);
    roles.allowLogsTo(logGroup);
    errorLogFilter(this, 'Push', logGroup, config.name);

    const api = new WebSocketApi(this, 'PushApi', {
      apiName: `template-marketplace-push-${config.name}`,
      description: 'Push channel of the agents feed (docs/events.md, "Push")',
    });
    const stage = new WebSocketStage(this, 'PushStage', {
      webSocketApi: api,
      stageName: config.name,
      autoDeploy: true,
      throttle: { rateLimit: config.throttle.rateLimit, burstLimit: config.throttle.burstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(
          new LogGroup(this, 'PushAccessLogs', { retention: config.logRetention }),
        ),
        // WebSocket's own context variables (no method or path): one JSON line per handshake, message and close.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            routeKey: '$context.routeKey',
            eventType: '$context.eventType',
            status: '$context.status',
            connectionId: '$context.connectionId',
            integrationLatency: '$context.integrationLatency',
          }),
        ),
      },
    });
    const { partition, region, account } = nagArnParts(this);
    const manageConnections = `arn:${partition}:execute-api:${region}:${account}:<${this.getLogicalId(api.node.defaultChild as CfnElement)}>/${config.name}/*/@connections/*`;
    Validations.of(this).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${manageConnections}]`,
      reason:
        "ManageConnections on this stage's @connections, for any connection: connection ids are made by API Gateway at connect time.",
    });
    this.url = stage.url;
    this.callbackUrl = stage.callbackUrl;
    const env = { ...props.environment, PUSH_CONNECTIONS_ENDPOINT: stage.callbackUrl };

    const fn = (
      name: string,
      entry: string,
      grant = socketRouteGrant(socketRoutes.find((r) => r.name === name)!),
      functionName?: string,
    ) => {
      // A function that posts gets a role of its own class: ManageConnections on this stage's @connections only.
      const role = roles.forGrant(grant, name === 'push' ? name : undefined);
      if (grant.connections) stage.grantManagementApiAccess(role);
      const made = makeFunction(
        this,
        config,
        env,
        name,
        entry,
        { role, logGroup, ...(functionName ? { functionName } : {}) },
        { timeout: Duration.seconds(PUSH.functionTimeoutSeconds) },
      );
      this.functions.push({ name, fn: made });
      return made;
    };

    for (const route of socketRoutes) {
      api.addRoute(route.routeKey, {
        integration: new WebSocketLambdaIntegration(`${route.name}Integration`, fn(route.name, route.handler)),
      });
    }

    // Invoked asynchronously by the relay with each stream batch's new feed slots (lib/events/push-hand-off.ts):
    // no stream mapping of its own, so the table's stream keeps two readers. Its name is fixed, so the relay
    // (workers stack) may invoke it by name without a reference into this stack.
    const push = fn('push', workers.push, workerGrants.push, pushFunctionName(config.name));
    // A run that still fails after Lambda's retries is kept (which agents, and their slots) with an alarm;
    // a client's sync (at connect and every PUSH.keepAliveSeconds) has sent its events meanwhile.
    push.configureAsyncInvoke({
      retryAttempts: PUSH.handOffRetryAttempts,
      onFailure: new SqsDestination(props.pushFailures),
    });
  }
}

import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  LogGroupLogDestination,
  MethodLoggingLevel,
  Cors,
  LambdaIntegration,
  ResponseTransferMode,
  RestApi,
  TokenAuthorizer,
  type IResource,
} from 'aws-cdk-lib/aws-apigateway';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Architecture, Runtime, StartingPosition, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { routes, TREND_ROLLOVER_UTC, workers, type Route } from '../lib/routes.ts';
import { DELIVERY_FUNCTION_TIMEOUT_SECONDS, DELIVERY_VISIBILITY_TIMEOUT_SECONDS } from '../lib/events/schedule.ts';
import { RELAY_FILTER_PATTERN } from '../lib/events/stream-filter.ts';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS } from '../lib/http/cors.ts';
import { SEARCH_INDEX_FILTER_PATTERN } from '../lib/marketplace/search-indexer.ts';
import { grantTable } from './grants.ts';
import { gatewayResponses } from './gateway-responses.ts';
import { perKeyUsagePlan } from './usage-plans.ts';
import { createTable } from './table.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface MarketplaceStackProps extends StackProps {
  stage: string;
  developmentMode: boolean;
  /** Origins allowed to call the API from a browser; `['*']` allows any (keys are bearer tokens, never cookies). */
  corsOrigins: readonly string[];
}

/** lib/events/schedule.ts: a batch's 10 s endpoint deadlines plus bookkeeping; a dead worker's messages come back within 25 s. */
const DELIVERY_TIMEOUT = Duration.seconds(DELIVERY_FUNCTION_TIMEOUT_SECONDS);

export class MarketplaceStack extends Stack {
  constructor(scope: Construct, id: string, props: MarketplaceStackProps) {
    super(scope, id, props);
    const table = createTable(this);

    const deadLetters = new Queue(this, 'DeliveryDeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const deliveryQueue = new Queue(this, 'DeliveryQueue', {
      // At least the function timeout (AWS's rule for SQS event sources) and short, so a message whose
      // worker died is attempted again within 25 s. AWS advises 6 × the timeout to absorb throttled
      // invocations; here a throttled receive costs one of the 20 receives the DLQ allows, which the
      // schedule's 9 attempts leave room for.
      visibilityTimeout: Duration.seconds(DELIVERY_VISIBILITY_TIMEOUT_SECONDS),
      retentionPeriod: Duration.days(4),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Retries are driven by the handler (visibility per attempt); the DLQ is for poison messages only,
      // so the receive count must outlast the whole retry schedule.
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: 20 },
    });

    const common = {
      TABLE_NAME: table.tableName,
      NODE_OPTIONS: '--enable-source-maps',
      CORS_ALLOWED_ORIGINS: props.corsOrigins.join(','),
      ...(props.developmentMode ? { DEVELOPMENT_MODE: 'true' } : {}),
    };
    const fn = (name: string, entry: string, options: { timeout?: Duration; memorySize?: number; env?: Record<string, string> } = {}) =>
      new NodejsFunction(this, `${name[0]!.toUpperCase()}${name.slice(1)}Function`, {
        entry: resolve(root, entry),
        handler: 'handler',
        runtime: Runtime.NODEJS_24_X,
        architecture: Architecture.ARM_64,
        memorySize: options.memorySize ?? 512,
        timeout: options.timeout ?? Duration.seconds(10),
        environment: { ...common, ...options.env },
        depsLockFilePath: resolve(root, 'package-lock.json'),
        projectRoot: root,
        bundling: {
          format: OutputFormat.ESM,
          target: 'node24',
          minify: true,
          sourceMap: true,
          // The AWS SDK is bundled too: a smaller cold start than the runtime's copy.
          externalModules: [],
          mainFields: ['module', 'main'],
          banner: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
        },
      });

    const authorizerFn = fn('authorizer', workers.authorizer);
    grantTable(authorizerFn, table, 'read');
    const authorizer = new TokenAuthorizer(this, 'ApiKeyAuthorizer', {
      handler: authorizerFn,
      identitySource: 'method.request.header.Authorization',
      resultsCacheTtl: Duration.minutes(5),
    });

    const api = new RestApi(this, 'Api', {
      restApiName: 'template-marketplace',
      deployOptions: {
        stageName: props.stage,
        throttlingRateLimit: 200,
        throttlingBurstLimit: 400,
        tracingEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        accessLogDestination: new LogGroupLogDestination(new LogGroup(this, 'ApiAccessLogs', { retention: RetentionDays.ONE_MONTH })),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
      },
      // A preflight (mock integration) on every resource, with the handlers' header lists.
      defaultCorsPreflightOptions: {
        allowOrigins: props.corsOrigins.includes('*') ? Cors.ALL_ORIGINS : [...props.corsOrigins],
        allowHeaders: [...CORS_ALLOWED_HEADERS],
        exposeHeaders: [...CORS_EXPOSED_HEADERS],
        maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
      },
      cloudWatchRole: true,
    });
    gatewayResponses(api, props.corsOrigins);

    const resources = new Map<string, IResource>([['/', api.root]]);
    const resourceFor = (path: string): IResource => {
      let current = api.root;
      let soFar = '';
      for (const segment of path.split('/').filter(Boolean)) {
        soFar += `/${segment}`;
        current = resources.get(soFar) ?? current.addResource(segment);
        resources.set(soFar, current);
      }
      return current;
    };

    for (const route of routes) {
      const handler = this.routeFunction(route, fn, deliveryQueue.queueUrl);
      grantTable(handler, table, route.access);
      if (route.sendsToQueue) deliveryQueue.grantSendMessages(handler);
      resourceFor(route.path).addMethod(
        route.method,
        new LambdaIntegration(handler, {
          allowTestInvoke: false,
          ...(route.streaming ? { responseTransferMode: ResponseTransferMode.STREAM, timeout: Duration.minutes(15) } : {}),
        }),
        route.auth ? { authorizer, authorizationType: AuthorizationType.CUSTOM } : { authorizationType: AuthorizationType.NONE },
      );
    }

    perKeyUsagePlan(this, api, props.stage);

    // Outbox relay: only new event rows, filtered by Lambda before the function is even invoked.
    const relay = fn('relay', workers.relay, { env: { DELIVERY_QUEUE_URL: deliveryQueue.queueUrl } });
    grantTable(relay, table, 'readwrite');
    deliveryQueue.grantSendMessages(relay);
    const relayFailures = new Queue(this, 'RelayFailures', { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    relay.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        bisectBatchOnError: true,
        retryAttempts: 10,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(relayFailures),
        // The same pattern the local stream poller applies (lib/events/stream-filter.ts).
        filters: [{ pattern: JSON.stringify(RELAY_FILTER_PATTERN) }],
      }),
    );
    table.grantStreamRead(relay);

    // Search index: template changes → postings and prefix counters (the stream's second consumer).
    const searchIndexer = fn('searchIndexer', workers.searchIndexer, { timeout: Duration.minutes(1) });
    grantTable(searchIndexer, table, 'readwrite');
    const searchIndexFailures = new Queue(this, 'SearchIndexFailures', { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    searchIndexer.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        bisectBatchOnError: true,
        retryAttempts: 10,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(searchIndexFailures),
        // The same pattern the local stream poller applies (lib/marketplace/search-indexer.ts).
        filters: [{ pattern: JSON.stringify(SEARCH_INDEX_FILTER_PATTERN) }],
      }),
    );
    table.grantStreamRead(searchIndexer);

    const deliver = fn('deliver', workers.deliver, { timeout: DELIVERY_TIMEOUT, env: { DELIVERY_QUEUE_URL: deliveryQueue.queueUrl } });
    grantTable(deliver, table, 'readwrite');
    deliveryQueue.grantConsumeMessages(deliver);
    deliver.addEventSource(new SqsEventSource(deliveryQueue, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: 50 }));

    // Trending's daily rollover: one read and one write per template installed in the last week.
    const trendRollover = fn('trendRollover', workers.trendRollover, { timeout: Duration.minutes(15) });
    grantTable(trendRollover, table, 'readwrite');
    // A run that still fails after Lambda's own retries lands here instead of vanishing; a missed day
    // only costs the trending reads extra rounds until the next run.
    const rolloverFailures = new Queue(this, 'TrendRolloverFailures', { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    trendRollover.configureAsyncInvoke({ retryAttempts: 2, onFailure: new SqsDestination(rolloverFailures) });
    new Rule(this, 'TrendRolloverSchedule', {
      schedule: Schedule.cron({ hour: String(TREND_ROLLOVER_UTC.hour), minute: String(TREND_ROLLOVER_UTC.minute) }),
      targets: [new LambdaFunction(trendRollover, { retryAttempts: 2 })],
    });

    new CfnOutput(this, 'ApiUrl', { value: api.url });
    new CfnOutput(this, 'MarketplaceBaseUrl', { value: `${api.url.replace(/\/$/, '')}/v1/marketplace` });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'DeliveryQueueUrl', { value: deliveryQueue.queueUrl });
  }

  private routeFunction(route: Route, fn: (name: string, entry: string, options?: { timeout?: Duration; env?: Record<string, string> }) => NodejsFunction, queueUrl: string): IFunction {
    return fn(route.name, route.handler, {
      timeout: Duration.seconds(route.timeoutSeconds ?? 10),
      ...(route.sendsToQueue ? { env: { DELIVERY_QUEUE_URL: queueUrl } } : {}),
    });
  }
}

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
import { StartingPosition, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { routeGrant, routes, TREND_ROLLOVER_UTC, workerGrants, workers } from '../lib/routes.ts';
import { BASE_PATHS, DELIVERY, ROUTE_TIMEOUTS, STREAM, TREND_ROLLOVER } from '../lib/core/settings.ts';
import { RELAY_FILTER_PATTERN } from '../lib/events/stream-filter.ts';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS } from '../lib/http/cors.ts';
import { SEARCH_INDEX_FILTER_PATTERN } from '../lib/marketplace/search/search-indexer.ts';
import { grantFunction } from './grants.ts';
import { gatewayResponses } from './gateway-responses.ts';
import { perKeyUsagePlan } from './usage-plans.ts';
import { addCustomDomain } from './domain.ts';
import { makeFunction, type FunctionOptions } from './lambda-function.ts';
import { addMonitoring } from './monitoring.ts';
import { FUNCTION_MEMORY_MB } from './sizing.ts';
import { addTracingSampling } from './tracing-sampling.ts';
import type { StageConfig } from './stage-config.ts';
import { createTable } from './table.ts';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';

export interface MarketplaceStackProps extends StackProps {
  config: StageConfig;
}

/** DELIVERY: a batch's 10 s endpoint deadlines plus bookkeeping; a dead worker's messages come back within 25 s. */
const DELIVERY_TIMEOUT = Duration.seconds(DELIVERY.functionTimeoutSeconds);

export class MarketplaceStack extends Stack {
  constructor(scope: Construct, id: string, props: MarketplaceStackProps) {
    super(scope, id, props);
    const { config } = props;
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
      visibilityTimeout: Duration.seconds(DELIVERY.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(4),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Retries are driven by the handler (visibility per attempt); the DLQ is for poison messages only,
      // so the receive count must outlast the whole retry schedule.
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: DELIVERY.maxReceiveCount },
    });

    const common = {
      TABLE_NAME: table.tableName,
      CORS_ALLOWED_ORIGINS: config.corsOrigins.join(','),
      ...(config.developmentMode ? { DEVELOPMENT_MODE: 'true' } : {}),
    };
    const functions: Array<{ name: string; fn: IFunction }> = [];
    const fn = (name: string, entry: string, options: FunctionOptions = {}) => {
      const made = makeFunction(this, config, common, name, entry, { memorySize: FUNCTION_MEMORY_MB[name], ...options });
      functions.push({ name, fn: made });
      return made;
    };

    const authorizerFn = fn('authorizer', workers.authorizer);
    grantFunction(authorizerFn, table, deliveryQueue, workerGrants.authorizer);
    const authorizer = new TokenAuthorizer(this, 'ApiKeyAuthorizer', {
      handler: authorizerFn,
      identitySource: 'method.request.header.Authorization',
      resultsCacheTtl: Duration.minutes(5),
    });

    const api = new RestApi(this, 'Api', {
      restApiName: 'template-marketplace',
      deployOptions: {
        stageName: config.name,
        throttlingRateLimit: config.throttle.rateLimit,
        throttlingBurstLimit: config.throttle.burstLimit,
        tracingEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        accessLogDestination: new LogGroupLogDestination(new LogGroup(this, 'ApiAccessLogs', { retention: config.logRetention })),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
      },
      // A preflight (mock integration) on every resource, with the handlers' header lists.
      defaultCorsPreflightOptions: {
        allowOrigins: config.corsOrigins.includes('*') ? Cors.ALL_ORIGINS : [...config.corsOrigins],
        allowHeaders: [...CORS_ALLOWED_HEADERS],
        exposeHeaders: [...CORS_EXPOSED_HEADERS],
        maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
      },
      cloudWatchRole: true,
    });
    gatewayResponses(api, config.corsOrigins);
    addTracingSampling(this, api, config.name);
    addCustomDomain(this, api, config);

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
      const handler = fn(route.name, route.handler, {
        timeout: Duration.seconds(route.timeoutSeconds ?? ROUTE_TIMEOUTS.defaultTimeoutSeconds),
        ...(route.streaming ? { reservedConcurrency: config.reservedConcurrency.stream } : {}),
        ...(route.sendsToQueue ? { env: { DELIVERY_QUEUE_URL: deliveryQueue.queueUrl } } : {}),
      });
      grantFunction(handler, table, deliveryQueue, routeGrant(route));
      resourceFor(route.path).addMethod(
        route.method,
        new LambdaIntegration(handler, {
          allowTestInvoke: false,
          ...(route.streaming ? { responseTransferMode: ResponseTransferMode.STREAM, timeout: Duration.seconds(ROUTE_TIMEOUTS.streamingTimeoutSeconds) } : {}),
        }),
        route.auth ? { authorizer, authorizationType: AuthorizationType.CUSTOM } : { authorizationType: AuthorizationType.NONE },
      );
    }

    perKeyUsagePlan(this, api, config.name);

    // Outbox relay: only new event rows, filtered by Lambda before the function is even invoked.
    const relay = fn('relay', workers.relay, { reservedConcurrency: config.reservedConcurrency.relay, env: { DELIVERY_QUEUE_URL: deliveryQueue.queueUrl } });
    grantFunction(relay, table, deliveryQueue, workerGrants.relay);
    // The same pattern the local stream poller applies (lib/events/stream-filter.ts).
    const relayFailures = streamConsumer(this, table, relay, 'RelayFailures', RELAY_FILTER_PATTERN);

    // Search index: template changes → postings and prefix counters (the stream's second consumer).
    const searchIndexer = fn('searchIndexer', workers.searchIndexer, { timeout: Duration.seconds(STREAM.workerTimeoutSeconds) });
    grantFunction(searchIndexer, table, deliveryQueue, workerGrants.searchIndexer);
    // The same pattern the local stream poller applies (lib/marketplace/search/search-indexer.ts).
    streamConsumer(this, table, searchIndexer, 'SearchIndexFailures', SEARCH_INDEX_FILTER_PATTERN);

    const deliver = fn('deliver', workers.deliver, { timeout: DELIVERY_TIMEOUT, reservedConcurrency: config.reservedConcurrency.deliver, env: { DELIVERY_QUEUE_URL: deliveryQueue.queueUrl } });
    grantFunction(deliver, table, deliveryQueue, workerGrants.deliver);
    deliver.addEventSource(new SqsEventSource(deliveryQueue, { batchSize: DELIVERY.batchSize, reportBatchItemFailures: true, maxConcurrency: config.reservedConcurrency.deliver }));

    // Trending's daily rollover: one read and one write per template installed in the last week.
    const trendRollover = fn('trendRollover', workers.trendRollover, { timeout: Duration.seconds(TREND_ROLLOVER.timeoutSeconds) });
    grantFunction(trendRollover, table, deliveryQueue, workerGrants.trendRollover);
    // A run that still fails after Lambda's own retries lands here instead of vanishing; a missed day
    // only costs the trending reads extra rounds until the next run.
    const rolloverFailures = new Queue(this, 'TrendRolloverFailures', { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    trendRollover.configureAsyncInvoke({ retryAttempts: 2, onFailure: new SqsDestination(rolloverFailures) });
    // An invocation EventBridge itself could not make (throttled, function missing) lands here.
    const scheduleDeadLetters = new Queue(this, 'ScheduleDeadLetters', { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    new Rule(this, 'TrendRolloverSchedule', {
      schedule: Schedule.cron({ hour: String(TREND_ROLLOVER_UTC.hour), minute: String(TREND_ROLLOVER_UTC.minute) }),
      targets: [new LambdaFunction(trendRollover, { retryAttempts: 2, deadLetterQueue: scheduleDeadLetters })],
    });

    addMonitoring(this, config, {
      api,
      table,
      deliveryQueue,
      deliveryDeadLetters: deadLetters,
      relayFailures,
      rolloverFailures,
      scheduleDeadLetters,
      functions,
    });

    new CfnOutput(this, 'ApiUrl', { value: api.url });
    new CfnOutput(this, 'MarketplaceBaseUrl', { value: `${api.url.replace(/\/$/, '')}${BASE_PATHS.marketplace}` });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'DeliveryQueueUrl', { value: deliveryQueue.queueUrl });
    // For `npm run admin -- redrive delivery` (DELIVERY_DLQ_URL) and a look at the failure queues.
    new CfnOutput(this, 'DeliveryDlqUrl', { value: deadLetters.queueUrl });
    new CfnOutput(this, 'RelayFailuresUrl', { value: relayFailures.queueUrl });
    new CfnOutput(this, 'TrendRolloverFailuresUrl', { value: rolloverFailures.queueUrl });
  }
}

/**
 * A consumer of the table's stream: records filtered by Lambda before the function runs, per-record
 * failures reported and retried (bisecting a failing batch), and what still fails kept in a queue.
 */
function streamConsumer(scope: Construct, table: Table, fn: IFunction, failuresId: string, pattern: unknown): Queue {
  const failures = new Queue(scope, failuresId, { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
  fn.addEventSource(
    new DynamoEventSource(table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: STREAM.batchSize,
      bisectBatchOnError: true,
      retryAttempts: STREAM.retryAttempts,
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(failures),
      filters: [{ pattern: JSON.stringify(pattern) }],
    }),
  );
  table.grantStreamRead(fn);
  return failures;
}

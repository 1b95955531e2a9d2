/**
 * The monitoring stack (stateless): every alarm, to the stateful stack's SNS topic, and one
 * dashboard, built with cdk-monitoring-constructs (it knows each service's metrics and renders the
 * dashboard from the same calls that create the alarms). Nothing here grows per route: route
 * functions are watched per area through their shared log group's error lines (infra/log-metrics.ts)
 * and through the API's own 5xx rate and latency; the dashboard graphs them with search
 * expressions. Workers and the authorizer, a fixed handful, keep per-function alarms.
 */
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { ComparisonOperator, MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  type CustomMetricGroup,
  DefaultDashboardFactory,
  MonitoringFacade,
  SnsAlarmActionStrategy,
} from 'cdk-monitoring-constructs';
import type { Construct } from 'constructs';
import { METRIC, METRICS_NAMESPACE, SERVICE_NAME } from '../lib/observability/names.ts';
import type { Route } from '../lib/routes.ts';
import { routeFunctionName } from './api-invoke.ts';
import type { ApiStack } from './api-stack.ts';
import { errorLogMetric } from './log-metrics.ts';
import type { StageConfig } from './stage-config.ts';
import type { StateStack } from './state-stack.ts';
import type { WorkersStack } from './workers-stack.ts';

export interface MonitoringStackProps extends StackProps {
  config: StageConfig;
  state: StateStack;
  api: ApiStack;
  workers: WorkersStack;
  routes: readonly Route[];
}

/** Thresholds in one place (docs/deployment.md "Alarms" explains each). */
export const THRESHOLDS = {
  /** Deliveries that failed (any kind) per 100 attempts, over 15 minutes. */
  deliveryFailurePercent: 20,
  /** A delivery message waiting this long means the delivery function is not keeping up (retries wait at most 10 h, on their own visibility). */
  deliveryOldestMessageSeconds: 11 * 3600,
  /** 5xx answers per 100 requests, over 5 minutes. */
  api5xxPercent: 1,
  apiP99: Duration.seconds(3),
} as const;

const PERIOD = Duration.minutes(5);

const serviceMetric = (metricName: string) =>
  new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: SERVICE_NAME },
    statistic: 'Sum',
    period: Duration.minutes(15),
  });

const above = (threshold: number) => ({
  Critical: { threshold, comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD },
});

export class MonitoringStack extends Stack {
  readonly facade: MonitoringFacade;

  constructor(scope: Construct, id: string, props: MonitoringStackProps) {
    super(scope, id, props);
    const { config, state, api, workers } = props;
    const stage = config.name;

    const facade = new MonitoringFacade(this, 'Monitoring', {
      alarmFactoryDefaults: {
        alarmNamePrefix: `template-marketplace-${stage}`,
        actionsEnabled: true,
        action: new SnsAlarmActionStrategy({ onAlarmTopic: state.alarmTopic, onOkTopic: state.alarmTopic }),
        datapointsToAlarm: 1,
      },
      metricFactoryDefaults: {},
      dashboardFactory: new DefaultDashboardFactory(this, 'Dashboards', {
        dashboardNamePrefix: `template-marketplace-${stage}`,
        createDashboard: true,
        createSummaryDashboard: false,
        createAlarmDashboard: false,
      }),
    });
    this.facade = facade;

    facade
      .monitorApiGateway({
        api: api.api,
        apiStage: stage,
        alarmFriendlyName: 'Api',
        // The rate is API Gateway's 5XXError averaged over requests: a fraction, not a percentage.
        add5XXFaultRateAlarm: { Critical: { maxErrorRate: THRESHOLDS.api5xxPercent / 100 } },
        addLatencyP99Alarm: { Warning: { maxLatency: THRESHOLDS.apiP99 } },
      })
      .monitorSqsQueue({
        queue: state.deliveryQueue,
        alarmFriendlyName: 'DeliveryQueue',
        addQueueMaxMessageAgeAlarm: { Warning: { maxAgeInSeconds: THRESHOLDS.deliveryOldestMessageSeconds } },
      })
      .monitorSqsQueue({
        queue: state.destinationQueue,
        alarmFriendlyName: 'DestinationQueue',
        addQueueMaxMessageAgeAlarm: { Warning: { maxAgeInSeconds: THRESHOLDS.deliveryOldestMessageSeconds } },
      });
    // Every dead-letter and failure queue alarms as soon as it holds a message (infra/queues.test.ts).
    for (const { queue, name } of state.failureQueues) {
      facade.monitorSqsQueue({
        queue,
        alarmFriendlyName: name,
        addQueueMaxSizeAlarm: { Critical: { maxMessageCount: 0 } },
      });
    }
    facade
      .monitorDynamoTable({
        table: state.table,
        alarmFriendlyName: 'Table',
        addReadThrottledEventsCountAlarm: { Warning: { maxThrottledEventsThreshold: 0 } },
        addWriteThrottledEventsCountAlarm: { Warning: { maxThrottledEventsThreshold: 0 } },
      })
      .monitorCustom({
        alarmFriendlyName: 'TableErrors',
        humanReadableName: 'DynamoDB system errors',
        metricGroups: [
          {
            title: 'System errors',
            metrics: [
              {
                alarmFriendlyName: 'SystemErrors',
                metric: systemErrors(state.table.tableName),
                addAlarm: { Warning: above(0).Critical },
              },
            ],
          },
        ],
      })
      .monitorCustom({
        alarmFriendlyName: 'Deliveries',
        humanReadableName: 'Webhook deliveries',
        metricGroups: [
          {
            title: 'Delivery failure rate (%)',
            metrics: [
              {
                alarmFriendlyName: 'DeliveryFailureRate',
                metric: new MathExpression({
                  label: 'failures per 100 attempts',
                  expression: 'IF(attempts > 0, 100 * failures / attempts, 0)',
                  usingMetrics: {
                    attempts: serviceMetric(METRIC.deliveryAttempts),
                    failures: serviceMetric(METRIC.deliveryFailures),
                  },
                  period: Duration.minutes(15),
                }),
                addAlarm: above(THRESHOLDS.deliveryFailurePercent),
              },
            ],
          },
          {
            title: 'Deliveries',
            metrics: [
              serviceMetric(METRIC.deliveryAttempts),
              serviceMetric(METRIC.deliverySuccesses),
              serviceMetric(METRIC.deliveryFailures),
            ],
          },
          {
            title: 'Verifications and rate limiting',
            metrics: [serviceMetric(METRIC.verifications), serviceMetric(METRIC.rateLimited)],
          },
        ],
      });

    facade.monitorCustom({
      alarmFriendlyName: 'Functions',
      humanReadableName: 'Functions: error lines per log group, route functions by name',
      metricGroups: [
        ...this.errorLineGroups(stage, [...api.areas.map((a) => a.name), 'Authorizer', 'Workers', 'Push']),
        ...this.routeGroups(stage, props.routes),
      ],
    });

    const watched: Array<{ name: string; fn: IFunction }> = [...workers.functions, ...api.push.functions];
    for (const { name, fn } of watched) {
      facade.monitorLambdaFunction({
        lambdaFunction: fn,
        alarmFriendlyName: name,
        addFaultCountAlarm: { Critical: { maxErrorCount: 0 } },
        addThrottlesCountAlarm: { Warning: { maxErrorCount: 0 } },
      });
    }
    facade.monitorCustom({
      alarmFriendlyName: 'Authorizer',
      humanReadableName: 'API key authorizer',
      metricGroups: [
        {
          title: 'Errors',
          metrics: [
            {
              alarmFriendlyName: 'AuthorizerErrors',
              metric: lambdaMetric('Errors', api.authorizerFunctionName),
              addAlarm: above(0),
            },
          ],
        },
        {
          title: 'Throttles',
          metrics: [
            {
              alarmFriendlyName: 'AuthorizerThrottles',
              metric: lambdaMetric('Throttles', api.authorizerFunctionName),
              addAlarm: above(0),
            },
          ],
        },
      ],
    });
  }

  /** One alarm per log group on its error lines: per area, not per function. */
  private errorLineGroups(stage: string, groups: string[]): CustomMetricGroup[] {
    return groups.map((group) => {
      const { namespace, metricName } = errorLogMetric(stage, group);
      return {
        title: `${group}: error lines`,
        metrics: [
          {
            alarmFriendlyName: `${group}ErrorLines`,
            metric: new Metric({ namespace, metricName, statistic: 'Sum', period: PERIOD }),
            addAlarm: above(0),
          },
        ],
      };
    });
  }

  /**
   * Route functions on the dashboard through search expressions (constant size, whatever the number
   * of routes), and a throttle alarm for each streaming route (the SSE stream: a client past the
   * stage's reservation, or the account's concurrency where it reserves none, gets a 500).
   */
  private routeGroups(stage: string, routes: readonly Route[]): CustomMetricGroup[] {
    const search = (metricName: string, statistic: string) =>
      new MathExpression({
        expression: `SEARCH('{AWS/Lambda,FunctionName} MetricName="${metricName}" "${routeFunctionName(stage, '')}"', '${statistic}', ${PERIOD.toSeconds()})`,
        usingMetrics: {},
        label: '',
        period: PERIOD,
      });
    return [
      { title: 'Route functions: errors', metrics: [search('Errors', 'Sum')] },
      { title: 'Route functions: throttles', metrics: [search('Throttles', 'Sum')] },
      { title: 'Route functions: p99 duration', metrics: [search('Duration', 'p99')] },
      ...routes
        .filter((route) => route.streaming)
        .map((route) => ({
          title: `${route.name}: throttles`,
          metrics: [
            {
              alarmFriendlyName: `${route.name}Throttles`,
              metric: lambdaMetric('Throttles', routeFunctionName(stage, route.name)),
              addAlarm: above(0),
            },
          ],
        })),
    ];
  }
}

/**
 * The operations the service calls (transactions included) and the stream's GetRecords.
 * DynamoDB publishes SystemErrors per operation and only when there are some; metric math joins
 * series on their timestamps, so a plain sum would be missing unless every operation erred at
 * once: each is FILLed with 0 first (infra/alarms.test.ts).
 */
const TABLE_OPERATIONS = [
  'GetItem',
  'BatchGetItem',
  'Query',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'GetRecords',
] as const;

const systemErrors = (tableName: string) =>
  new MathExpression({
    label: 'system errors, all operations',
    expression: TABLE_OPERATIONS.map((op) => `FILL(${op.toLowerCase()},0)`).join('+'),
    usingMetrics: Object.fromEntries(
      TABLE_OPERATIONS.map((op) => [
        op.toLowerCase(),
        new Metric({
          namespace: 'AWS/DynamoDB',
          metricName: 'SystemErrors',
          dimensionsMap: { TableName: tableName, Operation: op },
          statistic: 'Sum',
          period: PERIOD,
        }),
      ]),
    ),
    period: PERIOD,
  });

const lambdaMetric = (metricName: string, functionName: string) =>
  new Metric({
    namespace: 'AWS/Lambda',
    metricName,
    dimensionsMap: { FunctionName: functionName },
    statistic: 'Sum',
    period: PERIOD,
  });

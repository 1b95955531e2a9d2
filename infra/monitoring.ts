import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { ComparisonOperator, MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { DefaultDashboardFactory, MonitoringFacade, SnsAlarmActionStrategy } from 'cdk-monitoring-constructs';
import type { Construct } from 'constructs';
import { METRIC, METRICS_NAMESPACE, SERVICE_NAME } from '../lib/observability/names.ts';
import type { StageConfig } from './stage-config.ts';

export interface MonitoredParts {
  api: RestApi;
  table: ITable;
  deliveryQueue: IQueue;
  deliveryDeadLetters: IQueue;
  relayFailures: IQueue;
  rolloverFailures: IQueue;
  scheduleDeadLetters: IQueue;
  functions: Array<{ name: string; fn: IFunction }>;
}

/** Thresholds in one place (docs/deployment.md explains each alarm). */
export const THRESHOLDS = {
  /** Deliveries that failed (any kind) per 100 attempts, over 15 minutes. */
  deliveryFailurePercent: 20,
  /** A delivery message waiting this long means the delivery function is not keeping up (retries wait at most 10 h, on their own visibility). */
  deliveryOldestMessageSeconds: 11 * 3600,
  api5xxPercent: 1,
  apiP99: Duration.seconds(3),
} as const;

const serviceMetric = (metricName: string) =>
  new Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { service: SERVICE_NAME }, statistic: 'Sum', period: Duration.minutes(15) });

/**
 * Alarms to one SNS topic (plus the stage's e-mail when configured) and one dashboard with the
 * same metrics, built with cdk-monitoring-constructs: it knows each service's metrics, renders the
 * dashboard from the same calls that create the alarms, and names alarms consistently.
 */
export function addMonitoring(scope: Construct, config: StageConfig, parts: MonitoredParts): { topic: Topic; facade: MonitoringFacade } {
  const topic = new Topic(scope, 'AlarmTopic', { displayName: `template-marketplace ${config.name} alarms`, enforceSSL: true });
  if (config.alarmEmail) topic.addSubscription(new EmailSubscription(config.alarmEmail));

  const facade = new MonitoringFacade(scope, 'Monitoring', {
    alarmFactoryDefaults: {
      alarmNamePrefix: `template-marketplace-${config.name}`,
      actionsEnabled: true,
      action: new SnsAlarmActionStrategy({ onAlarmTopic: topic, onOkTopic: topic }),
      datapointsToAlarm: 1,
    },
    metricFactoryDefaults: {},
    dashboardFactory: new DefaultDashboardFactory(scope, 'Dashboards', {
      dashboardNamePrefix: `template-marketplace-${config.name}`,
      createDashboard: true,
      createSummaryDashboard: false,
      createAlarmDashboard: false,
    }),
  });

  facade
    .monitorApiGateway({
      api: parts.api,
      apiStage: config.name,
      alarmFriendlyName: 'Api',
      add5XXFaultRateAlarm: { Critical: { maxErrorRate: THRESHOLDS.api5xxPercent } },
      addLatencyP99Alarm: { Warning: { maxLatency: THRESHOLDS.apiP99 } },
    })
    .monitorSqsQueueWithDlq({
      queue: parts.deliveryQueue,
      deadLetterQueue: parts.deliveryDeadLetters,
      alarmFriendlyName: 'DeliveryQueue',
      addQueueMaxMessageAgeAlarm: { Warning: { maxAgeInSeconds: THRESHOLDS.deliveryOldestMessageSeconds } },
      addDeadLetterQueueMaxSizeAlarm: { Critical: { maxMessageCount: 0 } },
    })
    .monitorSqsQueue({ queue: parts.relayFailures, alarmFriendlyName: 'RelayFailures', addQueueMaxSizeAlarm: { Critical: { maxMessageCount: 0 } } })
    .monitorSqsQueue({ queue: parts.rolloverFailures, alarmFriendlyName: 'TrendRolloverFailures', addQueueMaxSizeAlarm: { Critical: { maxMessageCount: 0 } } })
    .monitorSqsQueue({ queue: parts.scheduleDeadLetters, alarmFriendlyName: 'ScheduleDeadLetters', addQueueMaxSizeAlarm: { Critical: { maxMessageCount: 0 } } })
    .monitorDynamoTable({
      table: parts.table,
      alarmFriendlyName: 'Table',
      addReadThrottledEventsCountAlarm: { Warning: { maxThrottledEventsThreshold: 0 } },
      addWriteThrottledEventsCountAlarm: { Warning: { maxThrottledEventsThreshold: 0 } },
      addSystemErrorCountAlarm: { Warning: { maxErrorCount: 0 } },
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
                usingMetrics: { attempts: serviceMetric(METRIC.deliveryAttempts), failures: serviceMetric(METRIC.deliveryFailures) },
                period: Duration.minutes(15),
              }),
              addAlarm: { Critical: { threshold: THRESHOLDS.deliveryFailurePercent, comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD } },
            },
          ],
        },
        { title: 'Deliveries', metrics: [serviceMetric(METRIC.deliveryAttempts), serviceMetric(METRIC.deliverySuccesses), serviceMetric(METRIC.deliveryFailures)] },
        { title: 'Verifications and rate limiting', metrics: [serviceMetric(METRIC.verifications), serviceMetric(METRIC.rateLimited)] },
      ],
    });

  for (const { name, fn } of parts.functions) {
    facade.monitorLambdaFunction({
      lambdaFunction: fn,
      alarmFriendlyName: name,
      addFaultCountAlarm: { Critical: { maxErrorCount: 0 } },
      addThrottlesCountAlarm: { Warning: { maxErrorCount: 0 } },
    });
  }
  return { topic, facade };
}

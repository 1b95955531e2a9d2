/**
 * What a stage costs a month with no traffic at all, from its synthesized templates and
 * infra/prices.ts: what AWS bills by the month whether or not anything happens (alarms by the
 * metric, the dashboard, the KMS key, the bytes in S3) and the requests Lambda makes to an empty
 * queue to find out it is empty. Everything else in a stage is billed per request, message,
 * invocation or byte (API Gateway, Lambda, DynamoDB on demand and its stream's reads by Lambda,
 * SNS, CloudFront, X-Ray, logs): nothing when idle. scripts/deployment-facts.ts writes the table
 * into docs/cost.md.
 */
import { PRICES } from './prices.ts';
import type { Resource } from './test-synth.ts';

export interface IdleLine {
  item: string;
  /** How many of it the stage has (alarm metrics, dashboards, keys, GB). */
  count: number;
  /** What one costs a month. */
  unitPrice: number;
  monthly: number;
}

/**
 * Lambda's pollers of a queue's event source keep long-polling it while it is empty, and SQS bills
 * each receive. AWS publishes neither how many pollers an idle mapping keeps nor how long each waits:
 * assumed here, 5 pollers each waiting the longest a receive may (20 s), not measured.
 */
export const ASSUMED_IDLE_POLLING = { pollersPerQueueMapping: 5, waitSeconds: 20 } as const;

const SECONDS_A_MONTH = 30.4 * 24 * 3600;

/** The metrics an alarm reads: one for an alarm on a metric, each `MetricStat` of an alarm on metric math. */
export const alarmMetrics = (alarm: Resource): number => {
  const metrics = alarm.Properties['Metrics'] as Array<{ MetricStat?: unknown }> | undefined;
  return metrics ? metrics.filter((m) => m.MetricStat).length : 1;
};

/** The monthly lines of an idle stage: its templates' resources, and the bytes its web bucket holds. */
export function idleCost(resources: readonly Resource[], storedBytes: number): IdleLine[] {
  const ofType = (type: string) => resources.filter((r) => r.Type === type);
  const line = (item: string, count: number, unitPrice: number): IdleLine => ({
    item,
    count,
    unitPrice,
    monthly: count * unitPrice,
  });
  return [
    line(
      'CloudWatch alarm metrics',
      ofType('AWS::CloudWatch::Alarm').reduce((n, a) => n + alarmMetrics(a), 0),
      PRICES.alarmMetricMonth,
    ),
    line('CloudWatch dashboards', ofType('AWS::CloudWatch::Dashboard').length, PRICES.dashboardMonth),
    line('KMS keys', ofType('AWS::KMS::Key').length, PRICES.kmsKeyMonth),
    line('S3 storage (GB: the web pages)', storedBytes / 1024 ** 3, PRICES.s3GbMonth),
    line(
      // A queue's mapping has no starting position; a stream's has one.
      'SQS receives by idle queue event sources (assumed pollers)',
      ofType('AWS::Lambda::EventSourceMapping').filter((m) => m.Properties['StartingPosition'] === undefined).length *
        ASSUMED_IDLE_POLLING.pollersPerQueueMapping *
        (SECONDS_A_MONTH / ASSUMED_IDLE_POLLING.waitSeconds),
      PRICES.sqsRequest,
    ),
  ];
}

export const idleTotal = (lines: readonly IdleLine[]): number => lines.reduce((sum, l) => sum + l.monthly, 0);

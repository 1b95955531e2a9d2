/**
 * Failures counted from a shared log group, so one alarm covers every function of an area however
 * many it has. Lambda's JSON log format gives two kinds of failure line: an `ERROR` level line
 * (lib/observability/log.ts for an unhandled error a handler answered with 500, the runtime for an error that
 * escaped the handler) and the platform's invocation report when the invocation did not succeed
 * (`error`, `timeout`, `failure`: crashes and timeouts log no ERROR line of the function's own).
 */
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../lib/observability/names.ts';

export const ERROR_LOG_PATTERN =
  '{ ($.level = "ERROR") || ($.type = "platform.report" && $.record.status != "success") }';

/** The metric a log group's error lines are counted in (alarms read it by name: no reference to the group's stack). */
export function errorLogMetric(stage: string, group: string): { namespace: string; metricName: string } {
  return { namespace: `${METRICS_NAMESPACE}/Logs`, metricName: `${stage}-${group}-ErrorLines` };
}

export function errorLogFilter(scope: Construct, group: string, logGroup: ILogGroup, stage: string): MetricFilter {
  const metric = errorLogMetric(stage, group);
  return new MetricFilter(scope, `${group}ErrorLines`, {
    logGroup,
    metricNamespace: metric.namespace,
    metricName: metric.metricName,
    filterPattern: FilterPattern.literal(ERROR_LOG_PATTERN),
    metricValue: '1',
  });
}

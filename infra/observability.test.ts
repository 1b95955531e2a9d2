import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { beforeAll, describe, expect, it } from 'vitest';
import { METRIC, METRICS_NAMESPACE } from '../lib/observability/names.ts';
import { routes, socketRoutes, workers } from '../lib/routes.ts';
import { AREAS, areaOf } from './areas.ts';
import { functionIdOf } from './lambda-function.ts';
import { ERROR_LOG_PATTERN, errorLogMetric } from './log-metrics.ts';
import { stageConfig } from './stage-config.ts';
import { type Resource, type Synthesized, synthApp } from './test-synth.ts';

let synth: Synthesized;
const config = stageConfig('prod');

beforeAll(() => {
  synth = synthApp({ stage: 'prod' });
}, 120_000);

const ofType = (type: string) => synth.resources.filter((r) => r.Type === type);
const functionNames = [...routes.map((r) => r.name), ...socketRoutes.map((r) => r.name), ...Object.keys(workers)];
const functionNamed = (name: string) =>
  ofType('AWS::Lambda::Function').find((f) => f.id.startsWith(functionIdOf(name)))!;
const alarms = () => ofType('AWS::CloudWatch::Alarm').map((a) => a.Properties);
/** Every metric an alarm reads, as "namespace/name", whether it is a plain metric or inside a math expression. */
const metricsOf = (alarm: Record<string, any>): string[] =>
  alarm['Metrics']
    ? (alarm['Metrics'] as Array<{ MetricStat?: { Metric: { Namespace: string; MetricName: string } } }>).flatMap(
        (m) => (m.MetricStat ? [`${m.MetricStat.Metric.Namespace}/${m.MetricStat.Metric.MetricName}`] : []),
      )
    : [`${alarm['Namespace']}/${alarm['MetricName']}`];
const refsIn = (value: unknown): string[] =>
  JSON.stringify(value).match(/"Ref":"([^"]+)"|"Fn::ImportValue":"([^"]+)"/g) ?? [];
/** The log group a function writes to, followed through the nested stack's parameter to the API stack when needed. */
function logGroupOf(fn: { stack: string } & Resource): { stack: string; id: string } & Resource {
  const ref = fn.Properties['LoggingConfig']['LogGroup']['Ref'] as string;
  const inStack = synth.resources.find((r) => r.stack === fn.stack && r.id === ref);
  if (inStack) return inStack;
  // A nested stack's parameter: the parent passes the log group's Ref under that name.
  const parent = fn.stack.slice(0, fn.stack.lastIndexOf('/'));
  const nested = synth.resources.find(
    (r) => r.stack === parent && r.Type === 'AWS::CloudFormation::Stack' && r.Properties['Parameters']?.[ref],
  );
  return synth.resources.find((r) => r.stack === parent && r.id === nested!.Properties['Parameters'][ref]['Ref'])!;
}

describe('observability in the synthesized stacks', () => {
  it("traces every function with X-Ray (infra/tracing.test.ts: which mode), logs JSON into its area's shared log group with the stage retention", () => {
    expect(config.logRetention).toBe(RetentionDays.THREE_MONTHS);
    const groupsUsed = new Set<string>();
    for (const name of functionNames) {
      const fn = functionNamed(name);
      expect(['Active', 'PassThrough'], name).toContain(fn.Properties['TracingConfig']['Mode']);
      expect(fn.Properties['LoggingConfig']['LogFormat'], name).toBe('JSON');
      const logGroup = logGroupOf(fn);
      expect(logGroup.Type, name).toBe('AWS::Logs::LogGroup');
      expect(logGroup.Properties['RetentionInDays'], name).toBe(90);
      groupsUsed.add(`${logGroup.stack}/${logGroup.id}`);
    }
    // One per area with routes, the authorizer's, the workers' and the push channel's: not one per function.
    expect(groupsUsed.size).toBe(new Set(routes.map(areaOf)).size + 3);
    expect(ofType('AWS::Logs::LogGroup').every((g) => typeof g.Properties['RetentionInDays'] === 'number')).toBe(true);
  });

  it('does not map stack traces at run time (no maps in the zip; scripts/map-stack-trace.ts maps them offline)', () => {
    for (const name of functionNames)
      expect(functionNamed(name).Properties['Environment']['Variables']['NODE_OPTIONS'] ?? '', name).not.toContain(
        '--enable-source-maps',
      );
  });

  it('sends every alarm to the one SNS topic, on alarm and on recovery', () => {
    const topics = ofType('AWS::SNS::Topic');
    expect(topics).toHaveLength(1);
    for (const alarm of alarms()) {
      expect(refsIn(alarm['AlarmActions']), alarm['AlarmName']).toEqual([expect.stringContaining('AlarmTopic')]);
      expect(refsIn(alarm['OKActions']), alarm['AlarmName']).toEqual([expect.stringContaining('AlarmTopic')]);
    }
  });

  it('counts error lines of every shared log group and alarms on each as soon as there is one', () => {
    const groups = [...AREAS.filter((area) => routes.some((r) => areaOf(r) === area)), 'Authorizer', 'Workers', 'Push'];
    const filters = ofType('AWS::Logs::MetricFilter');
    expect(filters).toHaveLength(groups.length);
    for (const group of groups) {
      const { namespace, metricName } = errorLogMetric('prod', group);
      const filter = filters.find((f) => f.Properties['MetricTransformations'][0]['MetricName'] === metricName);
      expect(filter, group).toBeDefined();
      expect(filter!.Properties['FilterPattern']).toBe(ERROR_LOG_PATTERN);
      expect(filter!.Properties['MetricTransformations'][0]['MetricNamespace']).toBe(namespace);
      const alarm = alarms().find((a) => metricsOf(a).includes(`${namespace}/${metricName}`));
      expect(alarm, group).toBeDefined();
      expect(alarm!['Threshold']).toBe(0);
      expect(alarm!['ComparisonOperator']).toBe('GreaterThanThreshold');
    }
  });

  it('alarms on the delivery failure rate (EMF metrics), the oldest delivery message, API 5xx rate and p99, DynamoDB throttles', () => {
    const reads = (metric: string) => alarms().filter((a) => metricsOf(a).includes(metric));
    const failureRate = reads(`${METRICS_NAMESPACE}/${METRIC.deliveryFailures}`);
    expect(failureRate).toHaveLength(1);
    expect(metricsOf(failureRate[0]!)).toContain(`${METRICS_NAMESPACE}/${METRIC.deliveryAttempts}`);
    expect(reads('AWS/SQS/ApproximateAgeOfOldestMessage').length).toBeGreaterThanOrEqual(1);
    expect(reads('AWS/ApiGateway/5XXError').length).toBeGreaterThanOrEqual(1);
    expect(
      alarms().some(
        (a) => JSON.stringify(a['Metrics']).includes('"Stat":"p99"') && metricsOf(a).includes('AWS/ApiGateway/Latency'),
      ),
    ).toBe(true);
    expect(reads('AWS/DynamoDB/ReadThrottleEvents')).toHaveLength(1);
    expect(reads('AWS/DynamoDB/WriteThrottleEvents')).toHaveLength(1);
  });

  it('alarms on errors and throttles of the authorizer, every worker and every route with reserved concurrency', () => {
    const watched = [...Object.keys(workers), ...routes.filter((r) => r.streaming).map((r) => r.name)];
    for (const name of watched) {
      const fn = functionNamed(name);
      // Alarms name a function by its name: an import of the generated one, or the fixed one of a route.
      const mentions = (a: Record<string, any>) =>
        JSON.stringify(a).includes(fn.Properties['FunctionName'] ?? functionIdOf(name));
      const about = alarms().filter(mentions);
      expect(about.flatMap(metricsOf).sort(), name).toEqual(
        expect.arrayContaining(
          name === 'streamAgentEvents' ? ['AWS/Lambda/Throttles'] : ['AWS/Lambda/Errors', 'AWS/Lambda/Throttles'],
        ),
      );
    }
  });

  it('has one dashboard, whose size does not depend on the number of routes (search expressions, not a widget per function)', () => {
    const dashboards = ofType('AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    expect(JSON.stringify(dashboards[0]!.Properties['DashboardBody'])).toContain('SEARCH(');
    for (const route of routes.filter((r) => !r.streaming))
      expect(JSON.stringify(dashboards[0]!.Properties['DashboardBody']), route.name).not.toContain(
        `route-${route.name}\\"`,
      );
  });

  it('keeps a schedule invocation EventBridge could not make in a dead-letter queue', () => {
    const [rule] = ofType('AWS::Events::Rule');
    expect(JSON.stringify(rule!.Properties['Targets'][0]['DeadLetterConfig']['Arn'])).toContain('ScheduleDeadLetters');
  });

  it("reserves the stage's setting for the relay and the event stream, caps the queue consumers by their event source, and sizes memory per function", () => {
    const stream = routes.find((r) => r.streaming)!.name;
    expect(functionNamed('relay').Properties['ReservedConcurrentExecutions']).toBe(config.reservedConcurrency.relay);
    expect(functionNamed(stream).Properties['ReservedConcurrentExecutions']).toBe(config.reservedConcurrency.stream);
    expect(functionNamed(stream).Properties['MemorySize']).toBe(128);
    // The queue consumers reserve nothing: their event sources cap them.
    for (const name of ['deliver', 'deliverToDestinations'])
      expect(functionNamed(name).Properties['ReservedConcurrentExecutions'], name).toBeUndefined();
    const queueSources = ofType('AWS::Lambda::EventSourceMapping').filter((m) => m.Properties['ScalingConfig']);
    expect(queueSources).toHaveLength(2);
    for (const source of queueSources)
      expect(source.Properties['ScalingConfig']['MaximumConcurrency']).toBe(config.queueConsumerConcurrency);
  });
});

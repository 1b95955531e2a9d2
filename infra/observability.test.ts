import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes, workers } from '../lib/routes.ts';
import { METRIC, METRICS_NAMESPACE } from '../lib/observability/names.ts';
import { functionIdOf } from './lambda-function.ts';
import { MarketplaceStack } from './stack.ts';
import { stageConfig } from './stage-config.ts';

type Resource = { Type: string; Properties: Record<string, any> };
let resources: Record<string, Resource>;
const config = stageConfig('prod');

beforeAll(() => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  resources = Template.fromStack(new MarketplaceStack(app, 'Obs', { config })).toJSON().Resources;
}, 120_000);

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const functionNames = [...routes.map((r) => r.name), ...Object.keys(workers)];
const functionNamed = (name: string) => ofType('AWS::Lambda::Function').find(([id]) => id.startsWith(functionIdOf(name)))![1];
const alarms = () => ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
/** Every metric an alarm reads, as "namespace/name", whether it is a plain metric or inside a math expression. */
const metricsOf = (alarm: Record<string, any>): string[] =>
  alarm['Metrics']
    ? (alarm['Metrics'] as Array<{ MetricStat?: { Metric: { Namespace: string; MetricName: string } } }>).flatMap((m) => (m.MetricStat ? [`${m.MetricStat.Metric.Namespace}/${m.MetricStat.Metric.MetricName}`] : []))
    : [`${alarm['Namespace']}/${alarm['MetricName']}`];
const refsIn = (value: unknown): string[] => JSON.stringify(value).match(/"Ref":"([^"]+)"/g)?.map((m) => m.slice(7, -1)) ?? [];

describe('observability in the synthesized stack', () => {
  it('traces every function with X-Ray (infra/tracing.test.ts: which mode), logs JSON into its own log group with the stage retention', () => {
    expect(config.logRetention).toBe(RetentionDays.THREE_MONTHS);
    for (const name of functionNames) {
      const fn = functionNamed(name).Properties;
      expect(['Active', 'PassThrough'], name).toContain(fn['TracingConfig']['Mode']);
      expect(fn['LoggingConfig']['LogFormat'], name).toBe('JSON');
      const logGroup = resources[fn['LoggingConfig']['LogGroup']['Ref']]!;
      expect(logGroup.Type, name).toBe('AWS::Logs::LogGroup');
      expect(logGroup.Properties['RetentionInDays'], name).toBe(90);
    }
    expect(ofType('AWS::Logs::LogGroup').every(([, g]) => typeof g.Properties['RetentionInDays'] === 'number')).toBe(true);
  });

  it('does not map stack traces at run time (no maps in the zip; scripts/map-stack-trace.ts maps them offline)', () => {
    for (const name of functionNames) expect(functionNamed(name).Properties['Environment']['Variables']['NODE_OPTIONS'] ?? '', name).not.toContain('--enable-source-maps');
  });

  it('sends every alarm to the one SNS topic, on alarm and on recovery', () => {
    const topics = ofType('AWS::SNS::Topic');
    expect(topics).toHaveLength(1);
    const [topicId] = topics[0]!;
    for (const alarm of alarms()) {
      expect(refsIn(alarm['AlarmActions']), alarm['AlarmName']).toEqual([topicId]);
      expect(refsIn(alarm['OKActions']), alarm['AlarmName']).toEqual([topicId]);
    }
  });

  it('alarms on every dead-letter and failure queue as soon as it holds a message', () => {
    const queues = ['DeliveryDeadLetters', 'RelayFailures', 'TrendRolloverFailures', 'ScheduleDeadLetters'];
    for (const queue of queues) {
      const depth = alarms().find(
        (a) => metricsOf(a).includes('AWS/SQS/ApproximateNumberOfMessagesVisible') && JSON.stringify(a['Metrics']).includes(`"${queue}`),
      );
      expect(depth, queue).toBeDefined();
      expect(depth!['Threshold']).toBe(0);
      expect(depth!['ComparisonOperator']).toBe('GreaterThanThreshold');
    }
  });

  it('alarms on the delivery failure rate (EMF metrics), the oldest delivery message, API 5xx rate and p99, DynamoDB throttles', () => {
    const reads = (metric: string) => alarms().filter((a) => metricsOf(a).includes(metric));
    const failureRate = reads(`${METRICS_NAMESPACE}/${METRIC.deliveryFailures}`);
    expect(failureRate).toHaveLength(1);
    expect(metricsOf(failureRate[0]!)).toContain(`${METRICS_NAMESPACE}/${METRIC.deliveryAttempts}`);
    expect(reads('AWS/SQS/ApproximateAgeOfOldestMessage').length).toBeGreaterThanOrEqual(1);
    expect(reads('AWS/ApiGateway/5XXError').length).toBeGreaterThanOrEqual(1);
    expect(alarms().some((a) => JSON.stringify(a['Metrics']).includes('"Stat":"p99"') && metricsOf(a).includes('AWS/ApiGateway/Latency'))).toBe(true);
    expect(reads('AWS/DynamoDB/ReadThrottleEvents')).toHaveLength(1);
    expect(reads('AWS/DynamoDB/WriteThrottleEvents')).toHaveLength(1);
  });

  it('alarms on errors and throttles of every function', () => {
    for (const name of functionNames) {
      const id = ofType('AWS::Lambda::Function').find(([logicalId]) => logicalId.startsWith(functionIdOf(name)))![0];
      const about = alarms().filter((a) => refsIn(a['Metrics']).includes(id));
      expect(about.flatMap(metricsOf).sort(), name).toEqual(expect.arrayContaining(['AWS/Lambda/Errors', 'AWS/Lambda/Throttles']));
    }
  });

  it('has one dashboard', () => {
    expect(ofType('AWS::CloudWatch::Dashboard')).toHaveLength(1);
  });

  it('keeps a schedule invocation EventBridge could not make in a dead-letter queue', () => {
    const [, rule] = ofType('AWS::Events::Rule')[0]!;
    const dlq = rule.Properties['Targets'][0]['DeadLetterConfig']['Arn']['Fn::GetAtt'][0] as string;
    expect(resources[dlq]!.Type).toBe('AWS::SQS::Queue');
  });

  it('reserves concurrency for delivery, relay and the event stream, and sizes memory per function', () => {
    const stream = routes.find((r) => r.streaming)!.name;
    expect(functionNamed('deliver').Properties['ReservedConcurrentExecutions']).toBe(config.reservedConcurrency.deliver);
    expect(functionNamed('relay').Properties['ReservedConcurrentExecutions']).toBe(config.reservedConcurrency.relay);
    expect(functionNamed(stream).Properties['ReservedConcurrentExecutions']).toBe(config.reservedConcurrency.stream);
    expect(functionNamed(stream).Properties['MemorySize']).toBe(128);
    // The delivery queue's event source never asks for more than the function may run.
    const [, deliverySource] = ofType('AWS::Lambda::EventSourceMapping').find(([, m]) => m.Properties['ScalingConfig'])!;
    expect(deliverySource.Properties['ScalingConfig']['MaximumConcurrency']).toBeLessThanOrEqual(config.reservedConcurrency.deliver);
  });
});

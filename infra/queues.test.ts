/**
 * Every queue of the app has a CfnOutput with its URL (for `npm run admin -- redrive` and a look)
 * and an alarm; every dead-letter and failure queue (a queue without a redrive policy of its own)
 * alarms as soon as it holds one message. A queue added without both fails here: infra/state-stack.ts's
 * `failureQueue` gives a new one both.
 */
import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { type Synthesized, synthApp } from './test-synth.ts';

/** What each queue lacks: an output with its URL, an alarm, a depth alarm at 0 for a failure queue. */
function lacking(synth: Synthesized): Record<string, string[]> {
  // Alarms live in the monitoring stack and name a queue through an import of the stateful stack's export.
  const exported = new Map<string, string>();
  for (const output of synth.outputs) {
    const getAtt = (output.Value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
    if (output.Export && getAtt?.[1] === 'QueueName') exported.set(output.Export.Name, `${output.stack}/${getAtt[0]}`);
  }
  const alarms = synth.resources.filter((r) => r.Type === 'AWS::CloudWatch::Alarm').map((r) => r.Properties);
  type Stat = { MetricName: string; Dimensions?: Array<{ Name: string; Value: any }> };
  // An alarm reads one plain metric (top-level properties) or several (`Metrics`, metric math).
  const statsOf = (alarm: Record<string, any>): Stat[] =>
    alarm['Metrics']
      ? (alarm['Metrics'] as Array<{ MetricStat?: { Metric: Stat } }>).flatMap((m) =>
          m.MetricStat ? [m.MetricStat.Metric] : [],
        )
      : [alarm as Stat];
  const queuesIn = (alarm: Record<string, any>): Array<{ queue: string; metric: string }> =>
    statsOf(alarm).flatMap((stat) =>
      (stat.Dimensions ?? [])
        .filter((d) => d.Name === 'QueueName')
        .map((d) => ({
          queue: exported.get(d.Value['Fn::ImportValue']) ?? JSON.stringify(d.Value),
          metric: stat.MetricName,
        })),
    );

  const missing: Record<string, string[]> = {};
  for (const queue of synth.resources.filter((r) => r.Type === 'AWS::SQS::Queue')) {
    const key = `${queue.stack}/${queue.id}`;
    const gaps: string[] = [];
    if (
      !synth.outputs.some(
        (o) => o.stack === queue.stack && JSON.stringify(o.Value) === JSON.stringify({ Ref: queue.id }),
      )
    )
      gaps.push('an output with its URL');
    const about = alarms.filter((a) => queuesIn(a).some((q) => q.queue === key));
    if (about.length === 0) gaps.push('an alarm');
    const isFailureQueue = !queue.Properties['RedrivePolicy'];
    const depthAlarm = about.some(
      (a) =>
        queuesIn(a).some((q) => q.metric === 'ApproximateNumberOfMessagesVisible') &&
        a['Threshold'] === 0 &&
        a['ComparisonOperator'] === 'GreaterThanThreshold',
    );
    if (isFailureQueue && !depthAlarm) gaps.push('a depth alarm at > 0');
    if (gaps.length > 0) missing[key] = gaps;
  }
  return missing;
}

describe('queues', () => {
  it('gives every queue, dead-letter and failure queues above all, an output and an alarm (alarm e-mail DLQ included)', () => {
    const synth = synthApp({ context: { alarmEmail: 'ops@example.com' } });
    const queues = synth.resources
      .filter((r) => r.Type === 'AWS::SQS::Queue')
      .map((q) => q.id.replace(/[0-9A-F]{8}$/, ''));
    expect(queues.sort()).toEqual([
      'AlarmEmailDeadLetters',
      'DeliveryDeadLetters',
      'DeliveryQueue',
      'DestinationDeadLetters',
      'DestinationQueue',
      'PushFailures',
      'RelayFailures',
      'ScheduleDeadLetters',
      'SearchIndexFailures',
      'TrendRolloverFailures',
    ]);
    expect(lacking(synth)).toEqual({});
  }, 120_000);

  it('finds a queue added without an output and an alarm', () => {
    const synth = synthApp({
      extend: (stacks) =>
        void new Queue(stacks.state, 'ForgottenFailures', {
          encryption: QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
          retentionPeriod: Duration.days(14),
        }),
    });
    expect(Object.entries(lacking(synth))).toEqual([
      [expect.stringContaining('ForgottenFailures'), ['an output with its URL', 'an alarm', 'a depth alarm at > 0']],
    ]);
  }, 120_000);
});

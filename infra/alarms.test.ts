/**
 * Every alarm of the synthesized stacks, tested by what it means: fed a series that must put it in
 * ALARM and one that must not, evaluated with its own threshold, statistic, period, evaluation
 * periods, datapoints to alarm, missing-data treatment and comparison (infra/alarm-evaluation.ts).
 * An alarm no case below covers fails the test; so does a case no alarm matches any more.
 * docs/operations.md ("Alarms: what to do") has a runbook line per case.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateExpression, fires, type Sample, statistic } from './alarm-evaluation.ts';
import { THRESHOLDS } from './monitoring.ts';
import { type Synthesized, synthApp } from './test-synth.ts';

type Alarm = Record<string, any>;

interface AlarmCase {
  /** Its row in docs/operations.md ("Alarms: what to do"). */
  title: string;
  /** The alarm's name after `template-marketplace-<stage>-`. */
  name: RegExp;
  /** What must fire it. */
  breach: (alarm: Alarm) => Sample[];
  /** What must not. */
  calm: (alarm: Alarm) => Sample[];
}

/** The one metric an alarm reads, as `Namespace/MetricName`. */
function metricOf(alarm: Alarm): string {
  if (!alarm['Metrics']) return `${alarm['Namespace']}/${alarm['MetricName']}`;
  const [stat] = (alarm['Metrics'] as Alarm[]).filter((m) => m['MetricStat']);
  return `${stat!['MetricStat']['Metric']['Namespace']}/${stat!['MetricStat']['Metric']['MetricName']}`;
}

/** `count` samples of `value` spread over the first `seconds` of the series. */
const spread = (metric: string, count: number, value: (i: number) => number, seconds = 240): Sample[] =>
  Array.from({ length: count }, (_, i) => ({ metric, at: Math.floor((i * seconds) / count), value: value(i) }));

/** A request per sample, `bad` of `total` answered 5xx (API Gateway's 5XXError is 1 or 0 per request). */
const requests = (total: number, bad: number) => spread('AWS/ApiGateway/5XXError', total, (i) => (i < bad ? 1 : 0));

const any = (alarm: Alarm, value: number): Sample[] => [{ metric: metricOf(alarm), at: 60, value }];

/** Alarms on a count that must stay at 0: errors, throttles, error lines, messages in a dead-letter queue. */
const anyAtAll = (title: string, name: RegExp, calm: 'zeros' | 'nothing'): AlarmCase => ({
  title,
  name,
  breach: (alarm) => any(alarm, 1),
  calm: (alarm) => (calm === 'zeros' ? spread(metricOf(alarm), 10, () => 0) : []),
});

const HOUR = 3600;
const deliveries = (attempts: number, failures: number): Sample[] => [
  ...spread('TemplateMarketplace/DeliveryAttempts', attempts, () => 1, 840),
  ...spread('TemplateMarketplace/DeliveryFailures', failures, () => 1, 840),
];

const CASES: AlarmCase[] = [
  {
    // More than 1 % of requests: 11 of 1,000 fire it, 10 of 1,000 do not.
    title: 'API 5xx rate',
    name: /^Api-Fault-Rate-Critical$/,
    breach: () => requests(1000, 11),
    calm: () => requests(1000, 10),
  },
  {
    // p99 above 3 s: two slow requests in 100 are the 99th percentile, one is not.
    title: 'API p99 latency',
    name: /^Api-Latency-P99-Warning$/,
    breach: () => spread('AWS/ApiGateway/Latency', 100, (i) => (i < 2 ? 3100 : 200)),
    calm: () => spread('AWS/ApiGateway/Latency', 100, (i) => (i < 1 ? 10_000 : 200)),
  },
  {
    // Older than 11 h (retries wait at most 10 h on their own visibility).
    title: 'Oldest delivery message',
    name: /^(Delivery|Destination)Queue-Queue-Message-Age-Max-Warning$/,
    breach: (alarm) => any(alarm, THRESHOLDS.deliveryOldestMessageSeconds + 60),
    calm: (alarm) => any(alarm, 10 * HOUR),
  },
  {
    // Every dead-letter and failure queue: one message is one too many; SQS reports 0 when empty.
    title: 'Dead-letter or failure queue',
    name: /^\w+(DeadLetters|Failures)-Queue-Message-Count-Max-Critical$/,
    breach: (alarm) => any(alarm, 1),
    calm: (alarm) => any(alarm, 0),
  },
  // DynamoDB publishes throttle events only when there are some.
  anyAtAll('DynamoDB throttles', /^Table-(Read|Write)-Throttled-Events-Warning$/, 'nothing'),
  {
    // One system error on one operation (a transaction) fires it, though no other operation erred.
    title: 'DynamoDB system errors',
    name: /^TableErrors-SystemErrors-Warning$/,
    breach: () => [
      { metric: 'AWS/DynamoDB/SystemErrors', at: 30, value: 1, dimensions: { Operation: 'TransactWriteItems' } },
    ],
    calm: () => [],
  },
  {
    // More than 20 failures per 100 attempts over 15 minutes.
    title: 'Delivery failure rate',
    name: /^Deliveries-DeliveryFailureRate-Critical$/,
    breach: () => deliveries(100, 21),
    calm: () => deliveries(100, 20),
  },
  // A metric filter publishes nothing while no line matches.
  anyAtAll('Error lines', /^Functions-\w+ErrorLines-Critical$/, 'nothing'),
  // Lambda publishes Errors and Throttles as 0 while invocations succeed.
  anyAtAll('SSE stream throttles', /^Functions-streamAgentEventsThrottles-Critical$/, 'zeros'),
  anyAtAll('Worker or push function errors, throttles', /^\w+-(Fault|Throttled)-Count-(Critical|Warning)$/, 'zeros'),
  anyAtAll('Authorizer errors, throttles', /^Authorizer-Authorizer(Errors|Throttles)-Critical$/, 'zeros'),
];

let synth: Synthesized;
let alarms: Array<{ short: string; alarm: Alarm }>;

beforeAll(() => {
  // With an alarm e-mail: its dead-letter queue has an alarm too.
  synth = synthApp({ stage: 'prod', context: { alarmEmail: 'ops@example.com' } });
  alarms = synth.resources
    .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
    .map((r) => ({
      alarm: r.Properties as Alarm,
      short: String(r.Properties['AlarmName']).replace(/^template-marketplace-prod-/, ''),
    }));
}, 120_000);

describe('every alarm, by what it means', () => {
  it('has exactly one case for each alarm, and no case without an alarm', () => {
    expect(alarms.length).toBeGreaterThan(30);
    for (const { short } of alarms)
      expect(
        CASES.filter((c) => c.name.test(short)).map((c) => String(c.name)),
        `${short}: add a case to infra/alarms.test.ts and a runbook line to docs/operations.md`,
      ).toHaveLength(1);
    for (const c of CASES)
      expect(
        alarms.some(({ short }) => c.name.test(short)),
        String(c.name),
      ).toBe(true);
  });

  it('fires on each breaching series and stays calm on each calm one', () => {
    for (const { short, alarm } of alarms) {
      const c = CASES.find((x) => x.name.test(short))!;
      expect(fires(alarm, c.breach(alarm)), `${short} on its breaching series`).toBe(true);
      expect(fires(alarm, c.calm(alarm)), `${short} on its calm series`).toBe(false);
    }
  });

  it('fires the 5xx alarm at more than 1 % of requests, whatever the traffic', () => {
    const alarm = alarms.find(({ short }) => short === 'Api-Fault-Rate-Critical')!.alarm;
    expect(fires(alarm, requests(100, 2))).toBe(true);
    expect(fires(alarm, requests(10_000, 101))).toBe(true);
    expect(fires(alarm, requests(10_000, 100))).toBe(false);
    // A quiet period (no request, no datapoint) is not an outage.
    expect(fires(alarm, [])).toBe(false);
  });

  it('lists every alarm in the runbook (docs/operations.md)', async () => {
    const { readFile } = await import('node:fs/promises');
    const runbook = await readFile(new URL('../docs/operations.md', import.meta.url), 'utf8');
    const section = runbook.slice(runbook.indexOf('## Alarms: what to do'));
    const rows = section.split('\n').filter((line) => line.startsWith('| '));
    for (const c of CASES)
      expect(
        rows.some((row) => row.startsWith(`| ${c.title} |`)),
        c.title,
      ).toBe(true);
  });
});

describe('the evaluation itself', () => {
  it('takes the statistic of each period, with no datapoint for a period without samples', () => {
    expect(statistic('Sum', [1, 2, 3])).toBe(6);
    expect(statistic('Average', [0, 0, 1, 1])).toBe(0.5);
    expect(statistic('Maximum', [3, 9, 1])).toBe(9);
    expect(statistic('p99', [...Array(98).fill(1), 5, 7])).toBe(5);
    expect(statistic('Sum', [])).toBeUndefined();
  });

  it('joins metric math on timestamps: a missing operand is a missing result unless FILLed', () => {
    const values: Record<string, number | undefined> = { a: 2, b: undefined };
    expect(evaluateExpression('a+b', (id) => values[id])).toBeUndefined();
    expect(evaluateExpression('FILL(a,0)+FILL(b,0)', (id) => values[id])).toBe(2);
    expect(evaluateExpression('IF(a > 0, 100 * a / 4, 0)', (id) => values[id])).toBe(50);
    expect(evaluateExpression('IF(a > 5, 1, 0)', (id) => values[id])).toBe(0);
  });

  it('needs DatapointsToAlarm of EvaluationPeriods, with missing data treated as the alarm says', () => {
    const alarm = {
      AlarmName: 'two of three',
      Namespace: 'N',
      MetricName: 'M',
      Statistic: 'Sum',
      Period: 60,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    };
    const at = (...minutes: number[]) => minutes.map((m) => ({ metric: 'N/M', at: m * 60 + 1, value: 1 }));
    expect(fires(alarm, at(0))).toBe(false);
    expect(fires(alarm, at(0, 2))).toBe(true);
    expect(fires(alarm, at(0, 3))).toBe(false);
    expect(fires({ ...alarm, TreatMissingData: 'breaching' }, at(0))).toBe(true);
  });
});

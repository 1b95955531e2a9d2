/**
 * What CloudWatch would make of an alarm, read from the synthesized template, given the datapoints
 * its metrics receive: each metric's statistic over its period, a metric-math expression on top,
 * then threshold and comparison, M of N datapoints and the missing-data treatment. infra/alarms.test.ts
 * feeds every alarm a series that must fire it and one that must not, so an alarm is tested by what
 * it means (a threshold on the wrong scale never fires), not by its existing.
 *
 * CloudWatch's rules as modelled here: a period with no sample has no datapoint (a statistic of
 * nothing is missing, not 0); metric math joins series on their timestamps, so an operation with a
 * missing operand is missing (FILL is how an expression makes a sparse metric count as 0); an alarm
 * evaluates its last EvaluationPeriods datapoints at the end of every period.
 */

import type { TemplateJson } from './stack-limits.ts';

/** One value a metric receives (a PutMetricData value, a log line a metric filter counted, an API Gateway request's 5XXError). */
export interface Sample {
  /** `Namespace/MetricName`, as the template names it. */
  metric: string;
  /** Seconds from the start of the series. */
  at: number;
  value: number;
  /** Only metrics whose literal dimensions include these take the sample (a metric's dimension given by a reference matches any). */
  dimensions?: Record<string, string>;
}

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

/** An alarm's properties as the template has them (parsed JSON, read field by field). */
type Json = Record<string, TemplateJson>;

interface MetricStat {
  metric: string;
  dimensions: Record<string, unknown>;
  period: number;
  stat: string;
}

type Series = Array<number | undefined>;

const COMPARE: Record<string, (value: number, threshold: number) => boolean> = {
  GreaterThanThreshold: (v, t) => v > t,
  GreaterThanOrEqualToThreshold: (v, t) => v >= t,
  LessThanThreshold: (v, t) => v < t,
  LessThanOrEqualToThreshold: (v, t) => v <= t,
};

/** The statistic of one period's values (undefined when it had none). */
export function statistic(stat: string, values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  switch (stat) {
    case 'Sum':
      return values.reduce((a, b) => a + b, 0);
    case 'Average':
      return values.reduce((a, b) => a + b, 0) / values.length;
    case 'Maximum':
      return sorted.at(-1);
    case 'Minimum':
      return sorted[0];
    case 'SampleCount':
      return values.length;
  }
  const percentile = /^p(\d+(?:\.\d+)?)$/.exec(stat);
  if (!percentile) throw new Error(`Statistic ${stat} is not modelled`);
  // Nearest rank: the smallest value at or above the given share of the values.
  const rank = Math.ceil((Number(percentile[1]) / 100) * sorted.length);
  return sorted[Math.max(rank, 1) - 1];
}

const literal = (value: unknown): value is string => typeof value === 'string';

function takes(stat: MetricStat, sample: Sample): boolean {
  if (sample.metric !== stat.metric) return false;
  return Object.entries(sample.dimensions ?? {}).every(
    ([name, value]) => !(name in stat.dimensions) || !literal(stat.dimensions[name]) || stat.dimensions[name] === value,
  );
}

/** The metric's datapoint in each of `periods` periods. */
function seriesOf(stat: MetricStat, samples: Sample[], periods: number): Series {
  return Array.from({ length: periods }, (_, i) =>
    statistic(
      stat.stat,
      samples
        .filter((s) => takes(stat, s) && s.at >= i * stat.period && s.at < (i + 1) * stat.period)
        .map((s) => s.value),
    ),
  );
}

const statOf = (metric: Json, period: number, stat: string): MetricStat => ({
  metric: `${metric['Namespace']}/${metric['MetricName']}`,
  dimensions: Object.fromEntries(((metric['Dimensions'] ?? []) as Json[]).map((d) => [d['Name'], d['Value']])),
  period,
  stat,
});

/** The alarm's period and the series it compares with its threshold. */
function alarmSeries(alarm: Json, samples: Sample[], span: number): { period: number; series: Series } {
  if (!alarm['Metrics']) {
    const stat = statOf(alarm, alarm['Period'], alarm['Statistic'] ?? alarm['ExtendedStatistic']);
    return { period: stat.period, series: seriesOf(stat, samples, Math.ceil(span / stat.period)) };
  }
  const queries = alarm['Metrics'] as Json[];
  const stats = queries.filter((q) => q['MetricStat']);
  const period = Math.max(...stats.map((q) => q['MetricStat']['Period'] as number));
  const periods = Math.ceil(span / period);
  const values = new Map<string, Series>(
    stats.map((q) => [
      q['Id'],
      seriesOf(statOf(q['MetricStat']['Metric'], q['MetricStat']['Period'], q['MetricStat']['Stat']), samples, periods),
    ]),
  );
  const returned = queries.filter((q) => q['ReturnData'] !== false);
  if (returned.length !== 1) throw new Error(`${alarm['AlarmName']}: an alarm returns exactly one series`);
  const [result] = returned;
  const series = result!['Expression']
    ? Array.from({ length: periods }, (_, i) =>
        evaluateExpression(result!['Expression'], (id) => {
          const of = values.get(id);
          if (!of) throw new Error(`${alarm['AlarmName']}: ${id} is not a metric of the alarm`);
          return of[i];
        }),
      )
    : values.get(result!['Id'])!;
  return { period, series };
}

/** The alarm's state at the end of each period of the series (and of `EvaluationPeriods` periods after it). */
export function alarmStates(alarm: Json, samples: Sample[]): AlarmState[] {
  const last = Math.max(0, ...samples.map((s) => s.at));
  const { period } = alarmSeries(alarm, samples, last + 1);
  const evaluationPeriods = alarm['EvaluationPeriods'] as number;
  const span = (Math.floor(last / period) + 1 + evaluationPeriods) * period;
  const { series } = alarmSeries(alarm, samples, span);
  const needed = (alarm['DatapointsToAlarm'] as number | undefined) ?? evaluationPeriods;
  const breaches = (value: number) => {
    const compare = COMPARE[alarm['ComparisonOperator']];
    if (!compare) throw new Error(`Comparison ${alarm['ComparisonOperator']} is not modelled`);
    return compare(value, alarm['Threshold']);
  };
  const treatment = (alarm['TreatMissingData'] as string | undefined) ?? 'missing';
  const states: AlarmState[] = [];
  let state: AlarmState = 'INSUFFICIENT_DATA';
  for (let end = 1; end <= series.length; end++) {
    const window = series.slice(Math.max(0, end - evaluationPeriods), end);
    const present = window.filter((v): v is number => v !== undefined);
    const missing = window.length - present.length;
    const breaching = present.filter(breaches).length;
    if (treatment === 'breaching') state = breaching + missing >= needed ? 'ALARM' : 'OK';
    else if (treatment === 'notBreaching') state = breaching >= needed ? 'ALARM' : 'OK';
    else if (present.length === 0) state = treatment === 'ignore' ? state : 'INSUFFICIENT_DATA';
    else state = breaching >= Math.min(needed, present.length) ? 'ALARM' : 'OK';
    states.push(state);
  }
  return states;
}

/** Whether the series puts the alarm in ALARM at any evaluation. */
export const fires = (alarm: Json, samples: Sample[]): boolean => alarmStates(alarm, samples).includes('ALARM');

// --- Metric math: the subset the alarms use (arithmetic, comparisons, IF, FILL) ---

type Value = number | undefined;

/** One datapoint of a metric-math expression, given each metric's datapoint at that timestamp. */
export function evaluateExpression(expression: string, datapointOf: (id: string) => Value): Value {
  const tokens = expression.match(/\s*(\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_]*|>=|<=|==|!=|[-+*/(),<>])\s*/g);
  if (!tokens || tokens.join('').length !== expression.length)
    throw new Error(`Expression ${expression} is not modelled`);
  const list = tokens.map((t) => t.trim());
  let at = 0;
  const peek = () => list[at];
  const next = () => list[at++];
  const expect = (token: string) => {
    if (next() !== token) throw new Error(`Expression ${expression}: expected ${token}`);
  };
  const both = (a: Value, b: Value, op: (x: number, y: number) => number): Value =>
    a === undefined || b === undefined ? undefined : op(a, b);

  const primary = (): Value => {
    const token = next();
    if (token === undefined) throw new Error(`Expression ${expression} ends early`);
    if (token === '(') {
      const value = comparison();
      expect(')');
      return value;
    }
    if (token === '-') return both(0, primary(), (x, y) => x - y);
    if (/^\d/.test(token)) return Number(token);
    if (peek() !== '(') return datapointOf(token);
    next();
    const args: Value[] = [comparison()];
    while (peek() === ',') {
      next();
      args.push(comparison());
    }
    expect(')');
    if (token === 'FILL') return args[0] ?? args[1];
    if (token === 'IF') return args[0] === undefined ? undefined : args[0] !== 0 ? args[1] : args[2];
    throw new Error(`Function ${token} is not modelled`);
  };
  const product = (): Value => {
    let value = primary();
    while (peek() === '*' || peek() === '/') {
      const op = next();
      const right = primary();
      // CloudWatch gives no datapoint for a division by zero.
      value = both(value, right, (x, y) => (op === '*' ? x * y : y === 0 ? Number.NaN : x / y));
      if (Number.isNaN(value)) value = undefined;
    }
    return value;
  };
  const sum = (): Value => {
    let value = product();
    while (peek() === '+' || peek() === '-') {
      const op = next();
      value = both(value, product(), (x, y) => (op === '+' ? x + y : x - y));
    }
    return value;
  };
  const comparison = (): Value => {
    const left = sum();
    const op = peek();
    if (op !== '>' && op !== '<' && op !== '>=' && op !== '<=' && op !== '==' && op !== '!=') return left;
    next();
    const right = sum();
    return both(left, right, (x, y) => {
      const holds = { '>': x > y, '<': x < y, '>=': x >= y, '<=': x <= y, '==': x === y, '!=': x !== y }[op];
      return holds ? 1 : 0;
    });
  };
  const value = comparison();
  if (at !== list.length) throw new Error(`Expression ${expression}: unexpected ${peek()}`);
  return value;
}

/**
 * CloudWatch metrics in the Embedded Metric Format: JSON lines in the function's log that
 * CloudWatch turns into metrics (no API call, no latency). Written here in a few lines rather than
 * with Powertools Metrics, which would add about 14 KB to every bundle. Emitted only inside Lambda
 * (or with METRICS_TO_STDOUT=true), so the local runtime and tests keep their output;
 * `flushMetrics()` runs after every invocation (lib/observability/lambda.ts).
 */

import { setting } from '../core/environment.ts';
import type { OutboundResult } from '../net/outbound.ts';
import { METRIC, METRICS_NAMESPACE, SERVICE_NAME } from './names.ts';

type Unit = 'Count' | 'Milliseconds';
interface Pending {
  dimensions: Record<string, string>;
  name: string;
  unit: Unit;
  values: number[];
}

let pending: Pending[] = [];
const emitting = (): boolean => setting('AWS_LAMBDA_FUNCTION_NAME') !== undefined || setting('METRICS_TO_STDOUT');

function add(name: string, unit: Unit, value: number, extra: Record<string, string> = {}): void {
  const dimensions = { service: SERVICE_NAME, ...extra };
  const key = JSON.stringify(dimensions);
  const same = pending.find((p) => p.name === name && JSON.stringify(p.dimensions) === key);
  if (same) same.values.push(value);
  else pending.push({ dimensions, name, unit, values: [value] });
}

/** Failure kinds of a delivery attempt: the receiver's status, no answer in time, the URL policy, the network. */
export type DeliveryFailureKind = 'http_status' | 'timeout' | 'url_policy' | 'network_error';

const FAILURE_KIND: Record<OutboundResult['kind'], DeliveryFailureKind> = {
  response: 'http_status',
  timeout: 'timeout',
  blocked: 'url_policy',
  network_error: 'network_error',
};
export const failureKindOf = (answer: OutboundResult): DeliveryFailureKind => FAILURE_KIND[answer.kind];

export function recordDeliveryAttempt(
  outcome: { ok: true; latencyMs: number } | { ok: false; kind: DeliveryFailureKind; latencyMs: number },
): void {
  if (!emitting()) return;
  add(METRIC.deliveryAttempts, 'Count', 1);
  add(METRIC.deliveryLatency, 'Milliseconds', outcome.latencyMs);
  if (outcome.ok) add(METRIC.deliverySuccesses, 'Count', 1);
  else {
    add(METRIC.deliveryFailures, 'Count', 1);
    add(METRIC.deliveryFailures, 'Count', 1, { kind: outcome.kind });
  }
}

export function recordVerification(outcome: string): void {
  if (emitting()) add(METRIC.verifications, 'Count', 1, { outcome });
}

export function recordRateLimited(): void {
  if (emitting()) add(METRIC.rateLimited, 'Count', 1);
}

/** One EMF document per dimension set; a metric seen more than once carries its values as an array (CloudWatch sums them). */
export function flushMetrics(): void {
  if (pending.length === 0) return;
  const groups = new Map<string, Pending[]>();
  for (const p of pending)
    groups.set(JSON.stringify(p.dimensions), [...(groups.get(JSON.stringify(p.dimensions)) ?? []), p]);
  pending = [];
  for (const metrics of groups.values()) {
    const dimensions = metrics[0]!.dimensions;
    const document = {
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [
          {
            Namespace: METRICS_NAMESPACE,
            Dimensions: [Object.keys(dimensions)],
            Metrics: metrics.map((m) => ({ Name: m.name, Unit: m.unit })),
          },
        ],
      },
      ...dimensions,
      ...Object.fromEntries(metrics.map((m) => [m.name, m.values.length === 1 ? m.values[0] : m.values])),
    };
    process.stdout.write(`${JSON.stringify(document)}\n`);
  }
}

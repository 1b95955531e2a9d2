import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { OutboundResult } from '../net/outbound.ts';
import { METRIC, METRICS_NAMESPACE, SERVICE_NAME } from './names.ts';

/**
 * CloudWatch metrics as EMF lines in the function's log (no API call, no extra latency). Emitted
 * only inside Lambda (or with METRICS_TO_STDOUT=true), so the local runtime and tests keep their
 * output; `flushMetrics()` runs after every invocation (lib/observability/lambda.ts).
 */
let metrics: Metrics | undefined;
const instance = (): Metrics => (metrics ??= new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME }));
const emitting = (): boolean => process.env['AWS_LAMBDA_FUNCTION_NAME'] !== undefined || process.env['METRICS_TO_STDOUT'] === 'true';

/** A metric with one extra dimension (a failure's kind, a verification's outcome), written at once. */
function countBy(name: string, dimension: string, value: string): void {
  const single = instance().singleMetric();
  single.addDimension(dimension, value);
  single.addMetric(name, MetricUnit.Count, 1);
}

/** Failure kinds of a delivery attempt: the receiver's status, no answer in time, the URL policy, the network. */
export type DeliveryFailureKind = 'http_status' | 'timeout' | 'url_policy' | 'network_error';

const FAILURE_KIND: Record<OutboundResult['kind'], DeliveryFailureKind> = { response: 'http_status', timeout: 'timeout', blocked: 'url_policy', network_error: 'network_error' };
export const failureKindOf = (answer: OutboundResult): DeliveryFailureKind => FAILURE_KIND[answer.kind];

export function recordDeliveryAttempt(outcome: { ok: true; latencyMs: number } | { ok: false; kind: DeliveryFailureKind; latencyMs: number }): void {
  if (!emitting()) return;
  const m = instance();
  m.addMetric(METRIC.deliveryAttempts, MetricUnit.Count, 1);
  m.addMetric(METRIC.deliveryLatency, MetricUnit.Milliseconds, outcome.latencyMs);
  if (outcome.ok) m.addMetric(METRIC.deliverySuccesses, MetricUnit.Count, 1);
  else {
    m.addMetric(METRIC.deliveryFailures, MetricUnit.Count, 1);
    countBy(METRIC.deliveryFailures, 'kind', outcome.kind);
  }
}

export function recordVerification(outcome: string): void {
  if (emitting()) countBy(METRIC.verifications, 'outcome', outcome);
}

export function recordRateLimited(): void {
  if (emitting()) instance().addMetric(METRIC.rateLimited, MetricUnit.Count, 1);
}

export function flushMetrics(): void {
  if (metrics?.hasStoredMetrics()) metrics.publishStoredMetrics();
}

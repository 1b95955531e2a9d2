/** The service name on every log line and the CloudWatch namespace of its metrics (alarms read them too). */
export const SERVICE_NAME = 'template-marketplace';
export const METRICS_NAMESPACE = 'TemplateMarketplace';

/** EMF metric names: the code emits them (lib/observability/metrics.ts), infra alarms and graphs them. */
export const METRIC = {
  deliveryAttempts: 'DeliveryAttempts',
  deliverySuccesses: 'DeliverySuccesses',
  /** Every failed attempt; also emitted per `kind` (timeout, connection, http_status, url_policy, …). */
  deliveryFailures: 'DeliveryFailures',
  /** Milliseconds from sending a delivery to the receiver's answer. */
  deliveryLatency: 'DeliveryLatency',
  /** Webhook verification handshakes, per `outcome`. */
  verifications: 'Verifications',
  /** 429 answers the service gave. */
  rateLimited: 'RateLimited',
} as const;

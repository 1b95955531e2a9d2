/**
 * AWS list prices the cost model (bench/_cost-model.ts, docs/cost.md) and the tracing rate
 * (infra/tracing-sampling.ts) are computed from: us-east-1, on demand, as published in 2025–2026
 * (DynamoDB after its price cut of 2024-11-01, Lambda's tiered log prices of 2025-05-01, Lambda
 * billing the INIT phase since 2025-08-01); not re-checked online from this machine. Free tiers are
 * left out: a model that holds at scale must not lean on them.
 */
export const PRICES = {
  /** Lambda on arm64: per GB-second (first tier) and per request. */
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  /** API Gateway REST API, per request, by monthly volume tier: the first and the last. */
  restApiRequestFirstTier: 3.5 / 1e6,
  restApiRequestLowestTier: 1.51 / 1e6,
  /** API Gateway WebSocket API: per message (first billion a month; billed per 32 KB) and per connection-minute. */
  websocketMessage: 1 / 1e6,
  websocketConnectionMinute: 0.25 / 1e6,
  /** DynamoDB on demand, per write and per read request unit. */
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  /** EventBridge Scheduler, per invocation of a schedule (docs/events.md compares it for retries). */
  schedulerInvocation: 1 / 1e6,
  /** SQS standard queue, per request (a batch of up to 10 messages is one). */
  sqsRequest: 0.4 / 1e6,
  /** CloudWatch Logs: per GB ingested (standard class, Lambda's first tier) and per GB-month stored (compressed about 6×). */
  logsIngestedGb: 0.5,
  logsStoredGbMonth: 0.03,
  /** X-Ray: per trace recorded, and per trace retrieved or scanned. */
  xrayTraceRecorded: 5 / 1e6,
  xrayTraceRetrieved: 0.5 / 1e6,
  /** CloudWatch: per standard-resolution alarm metric a month (an alarm on metric math pays each metric it reads), per dashboard a month. */
  alarmMetricMonth: 0.1,
  dashboardMonth: 3,
  /** KMS: per customer managed key a month (its requests are per use). */
  kmsKeyMonth: 1,
  /** S3 Standard: per GB-month stored. */
  s3GbMonth: 0.023,
} as const;

/**
 * The X-Ray sampling rule of the API stage: which requests API Gateway traces, and so what tracing
 * costs. The routes and the authorizer follow API Gateway's decision; the other functions pass a
 * caller's decision through (infra/lambda-function.ts), so this rule sets the whole X-Ray line.
 *
 * X-Ray's default rule traces the first request each second and 5 % of the rest: below one request
 * per second every request is traced, at $5 per million, more than API Gateway itself. This rule
 * has no reservoir and a fixed rate chosen so that recording a trace and reading it once stay within
 * 10 % of API Gateway's price per request at its cheapest volume tier, hence at every traffic level.
 */
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { CfnSamplingRule } from 'aws-cdk-lib/aws-xray';
import type { Construct } from 'constructs';
import { PRICES } from './prices.ts';

/** The most X-Ray may cost as a share of API Gateway's price per request. */
export const TRACING_SHARE_OF_API = 0.1;

/** X-Ray's price per sampled request: the trace recorded and read back once (console or query). */
const perTrace = PRICES.xrayTraceRecorded + PRICES.xrayTraceRetrieved;

/** The largest rate within the share at the cheapest tier, rounded down to a quarter percent. */
export const TRACING_FIXED_RATE =
  Math.floor(((TRACING_SHARE_OF_API * PRICES.restApiRequestLowestTier) / perTrace) * 400) / 400;

/** What tracing costs as a share of API Gateway's price per request, at a given API price. */
export const tracingShareAt = (apiPricePerRequest: number): number =>
  (TRACING_FIXED_RATE * perTrace) / apiPricePerRequest;

/**
 * Adds the rule for `api`'s deployment stage, named `stage` (the stage config's name). Rule names
 * are per account and region (at most 32 characters), so the stage's name is in it; priority 100
 * comes before X-Ray's default (10000).
 */
export function addTracingSampling(scope: Construct, api: RestApi, stage: string): CfnSamplingRule {
  return new CfnSamplingRule(scope, 'ApiTracingSampling', {
    samplingRule: {
      ruleName: `marketplace-api-${stage}`.slice(0, 32),
      priority: 100,
      reservoirSize: 0,
      fixedRate: TRACING_FIXED_RATE,
      resourceArn: api.deploymentStage.stageArn,
      serviceName: '*',
      serviceType: 'AWS::ApiGateway::Stage',
      host: '*',
      httpMethod: '*',
      urlPath: '*',
      version: 1,
    },
  });
}

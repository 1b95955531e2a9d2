/**
 * Per-key limits that API Gateway enforces itself: every method behind the authorizer requires an
 * API key, the key comes from the authorizer (`usageIdentifierKey`, never from a client header),
 * and one usage plan on the stage gives every key the same rate, burst and daily quota
 * (lib/core/settings.ts). The admin command attaches each new key to this plan (UsagePlanId output).
 * Called once the routes' methods exist.
 */
import { CfnOutput } from 'aws-cdk-lib';
import {
  ApiKeySourceType,
  AuthorizationType,
  type CfnMethod,
  type CfnRestApi,
  Period,
  type RestApi,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import type { Construct } from 'constructs';
import { API_KEY_LIMITS } from '../lib/core/settings.ts';

export function perKeyUsagePlan(scope: Construct, api: RestApi, stage: string): UsagePlan {
  (api.node.defaultChild as CfnRestApi).apiKeySourceType = ApiKeySourceType.AUTHORIZER;
  for (const method of api.methods) {
    const cfn = method.node.defaultChild as CfnMethod;
    if (cfn.authorizationType === AuthorizationType.CUSTOM) cfn.apiKeyRequired = true;
  }
  // The deployment's logical id hashes the methods as first defined; changing them afterwards must
  // change it too, or an update would leave the stage on a deployment without the key requirement.
  api.latestDeployment?.addToLogicalId({ perKeyUsagePlan: API_KEY_LIMITS });

  const plan = api.addUsagePlan('PerKeyUsagePlan', {
    name: `template-marketplace-${stage}-per-key`,
    description: 'The same limits for every API key (the admin command attaches each new key).',
    throttle: { rateLimit: API_KEY_LIMITS.ratePerSecond, burstLimit: API_KEY_LIMITS.burst },
    quota: { limit: API_KEY_LIMITS.dailyQuota, period: Period.DAY },
    apiStages: [{ api, stage: api.deploymentStage }],
  });
  new CfnOutput(scope, 'UsagePlanId', {
    value: plan.usagePlanId,
    description: 'USAGE_PLAN_ID for `npm run admin -- create-key` against this stage.',
  });
  return plan;
}

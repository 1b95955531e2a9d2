/**
 * The routes that answer without a key have no usage plan to count their callers, so each gets a
 * method throttle of the stage (KEYLESS_ROUTE_LIMITS, all callers together; docs/limits.md), below
 * the stage-wide one. Method settings replace the stage's for that method, so they repeat its
 * logging level. The local runtime holds the same limits per route (local/gateway/api-gateway.ts).
 */
import { type MethodDeploymentOptions, MethodLoggingLevel } from 'aws-cdk-lib/aws-apigateway';
import { KEYLESS_ROUTE_LIMITS } from '../lib/core/settings.ts';
import type { Route } from '../lib/routes.ts';

export function keylessMethodThrottles(routes: readonly Route[]): Record<string, MethodDeploymentOptions> {
  return Object.fromEntries(
    routes
      .filter((route) => !route.auth)
      .map((route) => [
        `${route.path}/${route.method}`,
        {
          throttlingRateLimit: KEYLESS_ROUTE_LIMITS.ratePerSecond,
          throttlingBurstLimit: KEYLESS_ROUTE_LIMITS.burst,
          loggingLevel: MethodLoggingLevel.ERROR,
        },
      ]),
  );
}

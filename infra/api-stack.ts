/**
 * The API stack (stateless): the REST API, its authorizer, gateway responses, usage plan, custom
 * domain, deployment and stage, the shared execution roles and log groups, and one nested stack
 * per area with the routes (infra/area-stack.ts). Nested, because a REST API's deployment must
 * follow every method: one `cdk deploy` of this stack updates the areas first and then deploys the
 * stage, and a failed update rolls all of them back together.
 */
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  Cors,
  EndpointType,
  type IResource,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApi,
  TokenAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import { type ILogGroup, LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { BASE_PATHS } from '../lib/core/settings.ts';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS } from '../lib/http/cors.ts';
import { type Route, workerGrants, workers } from '../lib/routes.ts';
import { apiInvokeRole } from './api-invoke.ts';
import { AreaStack } from './area-stack.ts';
import { AREAS, areaOf, sharedPaths } from './areas.ts';
import { addCustomDomain } from './domain.ts';
import { gatewayResponses } from './gateway-responses.ts';
import { keylessMethodThrottles } from './keyless-throttles.ts';
import { functionEnvironment, makeFunction, sharedLogGroup } from './lambda-function.ts';
import { errorLogFilter } from './log-metrics.ts';
import { PushStack } from './push-stack.ts';
import { FunctionRoles } from './roles.ts';
import type { StageConfig } from './stage-config.ts';
import type { StateStack } from './state-stack.ts';
import { addTracingSampling } from './tracing-sampling.ts';
import { perKeyUsagePlan } from './usage-plans.ts';
import { WebStack } from './web-stack.ts';

export interface ApiStackProps extends StackProps {
  config: StageConfig;
  state: StateStack;
  routes: readonly Route[];
}

export class ApiStack extends Stack {
  readonly api: RestApi;
  /** The areas that have routes, in AREAS order. */
  readonly areas: Array<{ name: string; stack: AreaStack; logGroup: ILogGroup; routes: readonly Route[] }> = [];
  readonly authorizerFunctionName: string;
  /** The push channel's WebSocket API, functions and worker (infra/push-stack.ts). */
  readonly push: PushStack;
  /** The catalog and portal pages (nested). */
  readonly web: WebStack;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { config, state } = props;
    const { table, deliveryQueue, destinationQueue } = state;

    const environment = functionEnvironment(config, table.tableName);
    const roles = new FunctionRoles(this, 'Roles', table, [deliveryQueue, destinationQueue], state.signingKey);
    const logGroupOf = (name: string): ILogGroup => {
      const logGroup = sharedLogGroup(this, `${name}Logs`, config);
      roles.allowLogsTo(logGroup);
      errorLogFilter(this, name, logGroup, config.name);
      return logGroup;
    };

    const authorizerFn = makeFunction(this, config, environment, 'authorizer', workers.authorizer, {
      role: roles.forGrant(workerGrants.authorizer),
      logGroup: logGroupOf('Authorizer'),
    });
    this.authorizerFunctionName = authorizerFn.functionName;
    const authorizer = new TokenAuthorizer(this, 'ApiKeyAuthorizer', {
      handler: authorizerFn,
      identitySource: 'method.request.header.Authorization',
      // No cache: API Gateway would reuse an Allow for the TTL (5 minutes by default, up to an hour),
      // and a revoked key or portal link must be refused from its next request (docs/decisions.md, "Revocation").
      resultsCacheTtl: Duration.seconds(0),
    });

    const api = new RestApi(this, 'Api', {
      restApiName: 'template-marketplace',
      // Regional, as its custom domain is (infra/domain.ts): an edge-optimized API would put a
      // CloudFront distribution the service does not use in front of every request.
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      deployOptions: {
        stageName: config.name,
        throttlingRateLimit: config.throttle.rateLimit,
        throttlingBurstLimit: config.throttle.burstLimit,
        methodOptions: keylessMethodThrottles(props.routes),
        tracingEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        accessLogDestination: new LogGroupLogDestination(
          new LogGroup(this, 'ApiAccessLogs', { retention: config.logRetention }),
        ),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
      },
      // A preflight (mock integration) on every resource, with the handlers' header lists.
      defaultCorsPreflightOptions: {
        allowOrigins: config.corsOrigins.includes('*') ? Cors.ALL_ORIGINS : [...config.corsOrigins],
        allowHeaders: [...CORS_ALLOWED_HEADERS],
        exposeHeaders: [...CORS_EXPOSED_HEADERS],
        maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
      },
      cloudWatchRole: true,
    });
    this.api = api;
    gatewayResponses(api, config.corsOrigins);
    addTracingSampling(this, api, config.name);
    addCustomDomain(this, api, config);

    // The paths above the areas belong to this stack; each area builds its own below them.
    const shared = new Map<string, IResource>([['/', api.root]]);
    for (const path of sharedPaths()) {
      const parent = shared.get(path.slice(0, path.lastIndexOf('/')) || '/')!;
      shared.set(path, parent.addResource(path.slice(path.lastIndexOf('/') + 1)));
    }

    // The pages call the API at its execute-api origin (a custom domain, where configured, serves the same API).
    const apiOrigin = `https://${api.restApiId}.execute-api.${this.region}.${this.urlSuffix}`;
    const web = new WebStack(this, 'Web', { apiOrigin, apiUrl: `${apiOrigin}/${config.name}` });
    this.web = web;
    environment['PORTAL_URL'] = `${web.siteUrl}/portal/`;

    const invokeRole = apiInvokeRole(this, config.name);
    for (const area of AREAS) {
      const routes = props.routes.filter((route) => areaOf(route) === area);
      if (routes.length === 0) continue;
      const logGroup = logGroupOf(area);
      const stack = new AreaStack(this, area, {
        config,
        routes,
        sharedResources: shared,
        authorizer,
        roles,
        invokeRole,
        logGroup,
        deliveryQueue,
        signingKey: state.signingKey,
        destinationQueue,
        environment,
      });
      this.areas.push({ name: area, stack, logGroup, routes });
    }

    perKeyUsagePlan(this, api, config.name);

    this.push = new PushStack(this, 'Push', {
      config,
      table,
      deliveryQueue,
      pushFailures: state.pushFailures,
      environment,
    });

    new CfnOutput(this, 'ApiUrl', { value: api.url });
    new CfnOutput(this, 'CatalogUrl', { value: `${web.siteUrl}/catalog/` });
    new CfnOutput(this, 'MarketplaceBaseUrl', { value: `${api.url.replace(/\/$/, '')}${BASE_PATHS.marketplace}` });
    // The client's `pushUrl` (docs/events.md, "Push").
    new CfnOutput(this, 'PushUrl', { value: this.push.url });
    // `npm run admin -- revoke-key` closes the revoked key's push connections there (docs/operations.md).
    new CfnOutput(this, 'PushConnectionsEndpoint', { value: this.push.callbackUrl });
  }
}

import { Aws, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type ILogGroup, LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../lib/observability/names.ts';
import { routes } from '../lib/routes.ts';
import { functionCode } from './bundle.ts';
import type { StageConfig } from './stage-config.ts';

export interface FunctionOptions {
  timeout?: Duration;
  memorySize?: number;
  env?: Record<string, string>;
  /** Caps this function's share of the account's concurrency (and guarantees it). */
  reservedConcurrency?: number | undefined;
}

/** Where a function runs and logs: shared per grant class and per area (infra/roles.ts, infra/area-stack.ts). */
export interface FunctionPlacement {
  role: IRole;
  logGroup: ILogGroup;
  /** A fixed name, for functions another role must be able to name (routes: infra/api-invoke.ts). */
  functionName?: string;
}

/** `publishTemplate` → `PublishTemplateFunction`: the logical id infra tests and alarms look for. */
export const functionIdOf = (name: string): string => `${name[0]!.toUpperCase()}${name.slice(1)}Function`;

// The esbuild settings live with the bundling (infra/bundle.ts); the cold-start bench reads them here too.
export { BUNDLING } from './bundle.ts';

/** The environment every function of the app gets (each adds its own, e.g. DELIVERY_QUEUE_URL). */
/** The destination sender role's name: fixed, so every function knows its ARN without a reference into the workers stack. */
export const destinationSenderRoleName = (stage: string): string => `template-marketplace-${stage}-destination-sender`;

/** The push worker's name: fixed, so the relay (workers stack) names and may invoke it without a reference into the API stack. */
export const pushFunctionName = (stage: string): string => `template-marketplace-${stage}-push`;

export function functionEnvironment(config: StageConfig, tableName: string): Record<string, string> {
  return {
    TABLE_NAME: tableName,
    // A destination in the service's own account is refused (lib/destinations/arn.ts).
    SERVICE_ACCOUNT_ID: Aws.ACCOUNT_ID,
    // The routes show it in the policy a customer applies; the destinations' worker assumes it (workers-stack.ts).
    DESTINATION_SENDER_ROLE_ARN: `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/${destinationSenderRoleName(config.name)}`,
    CORS_ALLOWED_ORIGINS: config.corsOrigins.join(','),
    ...(config.developmentMode ? { DEVELOPMENT_MODE: 'true' } : {}),
  };
}

/**
 * X-Ray per function. API Gateway invokes the routes and the authorizer with its own sampling
 * decision, made by the stage's sampling rule (infra/tracing-sampling.ts, which sets the rate and so
 * the cost); Active tracing follows that decision. Every other function (the queue, stream and
 * schedule workers) passes the caller's decision through: with Active, Lambda would sample
 * invocations that arrive without one at 1 per second and 5 % beyond, a rate no sampling rule can
 * change (every delivery batch at low traffic, $5 per million batches). A delivery whose message
 * carries a sampled trace (a retry sent by a traced request) is still traced.
 */
const API_INVOKED = new Set([...routes.map((r) => r.name), 'authorizer']);
export const tracingOf = (name: string): Tracing => (API_INVOKED.has(name) ? Tracing.ACTIVE : Tracing.PASS_THROUGH);

/**
 * A log group several functions share (Lambda's advanced logging: each function's streams carry
 * its name), with the stage's retention. A dev stage's logs go with it; prod keeps them for their
 * retention even after a delete.
 */
export function sharedLogGroup(scope: Construct, id: string, config: StageConfig): LogGroup {
  return new LogGroup(scope, id, {
    retention: config.logRetention,
    removalPolicy: config.terminationProtection ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
}

/**
 * Every Lambda function of the app: Node 24 on arm64, bundled by esbuild, X-Ray tracing as above,
 * JSON log format into its area's log group, with its grant class's role.
 */
export function makeFunction(
  scope: Construct,
  config: StageConfig,
  common: Record<string, string>,
  name: string,
  entry: string,
  placement: FunctionPlacement,
  options: FunctionOptions = {},
): NodejsFunction {
  const id = functionIdOf(name);
  const made = new NodejsFunction(scope, id, {
    ...(placement.functionName ? { functionName: placement.functionName } : {}),
    role: placement.role,
    // Bundled by infra/bundle.ts (every function in one esbuild run, reused by a later synth of the same sources).
    code: functionCode(entry),
    handler: 'index.handler',
    runtime: Runtime.NODEJS_24_X,
    architecture: Architecture.ARM_64,
    memorySize: options.memorySize ?? config.defaultMemoryMb,
    timeout: options.timeout ?? Duration.seconds(10),
    ...(options.reservedConcurrency !== undefined ? { reservedConcurrentExecutions: options.reservedConcurrency } : {}),
    tracing: tracingOf(name),
    loggingFormat: LoggingFormat.JSON,
    logGroup: placement.logGroup,
    environment: {
      ...common,
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      ...options.env,
    },
  });
  if (tracingOf(name) === Tracing.PASS_THROUGH) {
    Validations.of(made).acknowledge({
      id: 'Serverless-LambdaTracing',
      reason:
        'Traced when its caller sampled the request (PassThrough): Active would trace every invocation below 1 per second at a rate no sampling rule sets (infra/lambda-function.ts, docs/cost.md).',
    });
  }
  return made;
}

import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../lib/observability/names.ts';
import { routes } from '../lib/routes.ts';
import type { StageConfig } from './stage-config.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface FunctionOptions {
  timeout?: Duration;
  memorySize?: number;
  env?: Record<string, string>;
  /** Caps this function's share of the account's concurrency (and guarantees it). */
  reservedConcurrency?: number;
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

/**
 * The esbuild settings every function is bundled with; `npm run bench -- coldstart` and the
 * bundle-size test build with the same ones, so what they measure is what ships.
 */
export const BUNDLING = {
  format: OutputFormat.ESM,
  target: 'node24',
  minify: true,
  /**
   * No source map in the zip and no --enable-source-maps: with them Node read and parsed a map of
   * about 400 KB at every cold start, a median 23 % more import CPU (`npm run bench -- coldstart`
   * measures both). A minified stack trace from the logs maps back offline with
   * `npm run --silent map-stack-trace -- <function>` (scripts/map-stack-trace.ts), which rebuilds
   * the same bundle with its map from the deployed commit.
   */
  sourceMap: false,
  // Maps made offline name the sources but hold no copy of them (they were 98 MB).
  sourcesContent: false,
  // The AWS SDK is bundled too: a smaller cold start than the runtime's copy.
  externalModules: [] as string[],
  mainFields: ['module', 'main'],
  banner: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  /** Module replacements inside the bundles only: parts of the SDK no function runs (each file says why). */
  alias: {
    '@aws-sdk/credential-provider-node': resolve(root, 'lib/aws/env-credentials.ts'),
    '@smithy/core/event-streams': resolve(root, 'lib/aws/no-event-streams.ts'),
    'mnemonist/lru-cache': resolve(root, 'lib/aws/small-lru.ts'),
    '@aws/lambda-invoke-store': resolve(root, 'lib/aws/no-invoke-store.ts'),
    '@smithy/core/checksum': resolve(root, 'lib/aws/node-checksums.ts'),
  } as Record<string, string>,
};

/** The environment every function of the app gets (each adds its own, e.g. DELIVERY_QUEUE_URL). */
export function functionEnvironment(config: StageConfig, tableName: string): Record<string, string> {
  return {
    TABLE_NAME: tableName,
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
    entry: resolve(root, entry),
    handler: 'handler',
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
    depsLockFilePath: resolve(root, 'package-lock.json'),
    projectRoot: root,
    bundling: {
      format: BUNDLING.format,
      target: BUNDLING.target,
      minify: BUNDLING.minify,
      sourceMap: BUNDLING.sourceMap,
      sourcesContent: BUNDLING.sourcesContent,
      externalModules: BUNDLING.externalModules,
      mainFields: BUNDLING.mainFields,
      banner: BUNDLING.banner,
      esbuildArgs: Object.fromEntries(Object.entries(BUNDLING.alias).map(([from, to]) => [`--alias:${from}`, to])),
    },
  });
  if (tracingOf(name) === Tracing.PASS_THROUGH) {
    Validations.of(made).acknowledge({ id: 'Serverless-LambdaTracing', reason: 'Traced when its caller sampled the request (PassThrough): Active would trace every invocation below 1 per second at a rate no sampling rule sets (infra/lambda-function.ts, docs/cost.md).' });
  }
  return made;
}

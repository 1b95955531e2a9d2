import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../lib/observability/names.ts';
import { functionCode } from './bundle.ts';
import type { StageConfig } from './stage-config.ts';

export interface FunctionOptions {
  timeout?: Duration;
  memorySize?: number;
  env?: Record<string, string>;
  /** Caps this function's share of the account's concurrency (and guarantees it). */
  reservedConcurrency?: number;
}

/** `publishTemplate` → `PublishTemplateFunction`: the logical id infra tests and alarms look for. */
export const functionIdOf = (name: string): string => `${name[0]!.toUpperCase()}${name.slice(1)}Function`;

// The esbuild settings live with the bundling (infra/bundle.ts); the cold-start bench reads them here too.
export { BUNDLING } from './bundle.ts';

/**
 * Every Lambda function of the stack: Node 24 on arm64, bundled by esbuild, X-Ray active tracing,
 * JSON log format into its own log group with the stage's retention.
 */
export function makeFunction(scope: Construct, config: StageConfig, common: Record<string, string>, name: string, entry: string, options: FunctionOptions = {}): NodejsFunction {
  const id = functionIdOf(name);
  const logGroup = new LogGroup(scope, `${id}Logs`, {
    retention: config.logRetention,
    // A dev stage's logs go with it; prod keeps them for their retention even after a delete.
    removalPolicy: config.terminationProtection ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
  return new NodejsFunction(scope, id, {
    // Bundled by infra/bundle.ts (every function in one esbuild run, reused by a later synth of the same sources).
    code: functionCode(entry),
    handler: 'index.handler',
    runtime: Runtime.NODEJS_24_X,
    architecture: Architecture.ARM_64,
    memorySize: options.memorySize ?? config.defaultMemoryMb,
    timeout: options.timeout ?? Duration.seconds(10),
    ...(options.reservedConcurrency !== undefined ? { reservedConcurrentExecutions: options.reservedConcurrency } : {}),
    tracing: Tracing.ACTIVE,
    loggingFormat: LoggingFormat.JSON,
    logGroup,
    environment: {
      ...common,
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      ...options.env,
    },
  });
}

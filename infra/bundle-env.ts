/**
 * The environment each function runs with in AWS, for the cold-start bench: the variables the
 * synthesized template gives it (read from a synth, so NODE_OPTIONS and every variable infra adds
 * are what ships) plus the ones Lambda's Node runtime sets itself. A reference to another resource
 * (the table's name, the queue's URL) becomes a placeholder of the same kind: only its presence
 * and length can matter to an import.
 */
import { functionIdOf } from './lambda-function.ts';
import { synthApp } from './test-synth.ts';

type Value =
  | string
  | number
  | { Ref?: string; 'Fn::GetAtt'?: [string, string]; 'Fn::Join'?: [string, Value[]] }
  | Record<string, unknown>;

/** A template value as a plain string: references become `<logical id>`-like placeholders. */
function plain(value: Value): string {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if ('Ref' in value && typeof value.Ref === 'string')
    return value.Ref.startsWith('AWS::') ? 'eu-west-1' : `${value.Ref}-0123456789AB`;
  if ('Fn::GetAtt' in value && Array.isArray(value['Fn::GetAtt']))
    return `${value['Fn::GetAtt'].join('-')}-0123456789AB`;
  if ('Fn::Join' in value && Array.isArray(value['Fn::Join']))
    return (value['Fn::Join'][1] as Value[]).map(plain).join(value['Fn::Join'][0] as string);
  return 'token';
}

/** What Lambda's Node 24 runtime sets in every function's process, before it imports the handler. */
export function lambdaRuntimeEnv(name: string, memoryMb: number): Record<string, string> {
  const region = 'eu-west-1';
  return {
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    AWS_LAMBDA_FUNCTION_NAME: `TemplateMarketplace-prod-${name}`,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryMb),
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_FORMAT: 'JSON',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/TemplateMarketplace-prod-${name}`,
    AWS_LAMBDA_LOG_STREAM_NAME: '2026/11/24/[$LATEST]0123456789abcdef0123456789abcdef',
    AWS_ACCESS_KEY_ID: 'ASIAEXAMPLEEXAMPLE00',
    AWS_SECRET_ACCESS_KEY: 'secret-example-secret-example-secret-example',
    AWS_SESSION_TOKEN: 'token-example',
    AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
    AWS_XRAY_DAEMON_ADDRESS: '169.254.79.129:2000',
    _AWS_XRAY_DAEMON_ADDRESS: '169.254.79.129',
    _AWS_XRAY_DAEMON_PORT: '2000',
    LAMBDA_TASK_ROOT: '/var/task',
    LAMBDA_RUNTIME_DIR: '/var/runtime',
    _HANDLER: 'index.handler',
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
  };
}

export interface DeployedFunction {
  /** The variables of the function's `Environment` in the template. */
  variables: Record<string, string>;
  memoryMb: number;
}

/**
 * Every function of the prod stage as synthesized (bundling skipped: only the settings are read),
 * by name (`lib/routes.ts`'s route and worker names).
 */
export function deployedFunctions(names: readonly string[]): Map<string, DeployedFunction> {
  const functions = synthApp({ stage: 'prod' })
    .resources.filter((r) => r.Type === 'AWS::Lambda::Function')
    .map((r): [string, { Environment?: { Variables?: Record<string, Value> }; MemorySize?: number }] => [
      r.id,
      r.Properties,
    ]);
  const out = new Map<string, DeployedFunction>();
  for (const name of names) {
    const found = functions.find(([id]) => id.startsWith(functionIdOf(name)));
    if (!found) throw new Error(`No function ${functionIdOf(name)} in the synthesized template`);
    const [, props] = found;
    const variables = Object.fromEntries(
      Object.entries(props.Environment?.Variables ?? {}).map(([k, v]) => [k, plain(v)]),
    );
    out.set(name, { variables, memoryMb: props.MemorySize ?? 128 });
  }
  return out;
}

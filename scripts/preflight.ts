/**
 * `npm run preflight -- -c stage=<name> [-c region=…] [-c domainName=… -c certificateArn=…]`:
 * before a deploy, asks the account's own read-only APIs whether it can take the stage (Lambda
 * GetAccountSettings: the concurrency quota against the stage's reservations; SSM GetParameter: the
 * CDK bootstrap version; the region) and prints what to do or request (infra/preflight.ts decides).
 * Exit 0, or 1 when a deploy would fail. Credentials and region come from the SDK's default chains,
 * as `cdk deploy` takes them; `AWS_ENDPOINT_URL_LAMBDA` / `AWS_ENDPOINT_URL_SSM` (the SDK's own
 * variables) point the calls elsewhere (infra/preflight.test.ts: a stand-in on 127.0.0.1).
 * IAM: lambda:GetAccountSettings and ssm:GetParameter on the bootstrap parameter.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { type AccountFacts, BOOTSTRAP_VERSION_PARAMETER, preflightFindings } from '../infra/preflight.ts';
import { stageConfig, stageNameOf } from '../infra/stage-config.ts';
import { AwsApiError, callJsonApi, type JsonApi } from '../lib/aws/json-protocol.ts';
import { type Credentials, signedRequest } from '../lib/aws/signed-request.ts';

const SSM_API: JsonApi = { service: 'ssm', target: 'AmazonSSM', version: '1.1' };

/** `-c key=value` and `--context key=value`, as `cdk` reads them. */
function contextOf(args: string[]): Record<string, string> {
  const context: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== '-c' && args[i] !== '--context') throw new Error(`Unknown argument ${args[i]}: give -c key=value`);
    const [key, ...value] = (args[++i] ?? '').split('=');
    if (!key || value.length === 0) throw new Error(`-c needs key=value, got "${args[i] ?? ''}"`);
    context[key] = value.join('=');
  }
  return context;
}

const endpointOf = (service: 'lambda' | 'ssm', region: string): string =>
  process.env[`AWS_ENDPOINT_URL_${service.toUpperCase()}`] ||
  process.env['AWS_ENDPOINT_URL'] ||
  `https://${service}.${region}.amazonaws.com`;

async function concurrencyOf(region: string, credentials: Credentials): Promise<AccountFacts['concurrency']> {
  const response = await signedRequest({
    method: 'GET',
    service: 'lambda',
    operation: 'GetAccountSettings',
    region,
    url: new URL('/2016-08-19/account-settings/', endpointOf('lambda', region)),
    headers: { accept: 'application/json' },
    credentials,
  });
  let answer: {
    AccountLimit?: { ConcurrentExecutions?: number; UnreservedConcurrentExecutions?: number };
    message?: string;
    Message?: string;
  } = {};
  try {
    answer = JSON.parse(response.body);
  } catch {
    // Not JSON (a proxy's error page): reported by its status below.
  }
  const limit = answer.AccountLimit;
  if (
    response.status >= 300 ||
    limit?.ConcurrentExecutions === undefined ||
    limit.UnreservedConcurrentExecutions === undefined
  )
    throw new Error(
      `Lambda GetAccountSettings answered ${response.status}: ${answer.message ?? answer.Message ?? 'no AccountLimit'}`,
    );
  return { limit: limit.ConcurrentExecutions, unreserved: limit.UnreservedConcurrentExecutions };
}

async function bootstrapVersionOf(region: string, credentials: Credentials): Promise<number | undefined> {
  try {
    const answer = await callJsonApi(
      SSM_API,
      'GetParameter',
      { Name: BOOTSTRAP_VERSION_PARAMETER },
      { endpoint: `${endpointOf('ssm', region)}/`, credentials, region },
    );
    return Number((answer['Parameter'] as { Value: string }).Value);
  } catch (error) {
    if (error instanceof AwsApiError && error.type === 'ParameterNotFound') return undefined;
    throw error;
  }
}

const context = contextOf(process.argv.slice(2));
const config = stageConfig(
  stageNameOf((key) => context[key]),
  (key) => context[key],
);
// The SDK's default chains (environment, profile, SSO, instance role), as any client resolves them.
const { config: sdk } = new SQSClient({});
const region = config.region ?? (await sdk.region().catch(() => undefined));
const credentials: Credentials = async () => sdk.credentials();

let facts: AccountFacts | undefined;
if (region) {
  try {
    const [concurrency, bootstrapVersion] = await Promise.all([
      concurrencyOf(region, credentials),
      bootstrapVersionOf(region, credentials),
    ]);
    facts = { region, concurrency, bootstrapVersion };
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
    process.stderr.write(`Preflight could not read the account in ${region}: ${(error as Error).message}${cause}\n`);
    process.exit(1);
  }
}
const findings = facts
  ? preflightFindings(config, facts)
  : preflightFindings(config, { region, concurrency: { limit: 0, unreserved: 0 }, bootstrapVersion: 0 }).filter(
      (f) => f.check === 'region',
    );
process.stdout.write(`Preflight of the ${config.name} stage\n`);
for (const finding of findings) process.stdout.write(`${finding.status.padEnd(4)} ${finding.check}: ${finding.say}\n`);
if (findings.some((f) => f.status === 'fail')) process.exit(1);

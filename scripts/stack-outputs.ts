/**
 * A deployed stage's settings, read from its stacks' outputs with CloudFormation's DescribeStacks, for
 * `npm run admin -- <command> --stage <stage>` and `npm run smoke -- --stage <stage>`: the platform
 * team needs AWS credentials and the stage's name, nothing copied from a deploy's output by hand.
 * DescribeStacks is one query-protocol call answered with a fixed XML document, signed here with the
 * SDK's SigV4 on the hand-signed calls' transport (lib/aws/signed-request.ts: the SDK's retries and
 * clock-skew correction) as STS's AssumeRole is, rather than a CloudFormation client
 * this repository does not otherwise need.
 */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { type Credentials, signedRequest } from '../lib/aws/signed-request.ts';

/** `TemplateMarketplace-<stage>`, as infra/stage-config.ts's stackIdOf names the stateful stack. */
export const stateStackOf = (stage: string): string => `TemplateMarketplace-${stage}`;
export const apiStackOf = (stage: string): string => `${stateStackOf(stage)}-Api`;

/** Each environment variable an admin command reads, from the output (and stack) that holds it. */
export const STAGE_OUTPUTS = [
  { name: 'TABLE_NAME', output: 'TableName', stack: stateStackOf },
  { name: 'USAGE_PLAN_ID', output: 'UsagePlanId', stack: apiStackOf },
  // A stage deployed before revoke-key closed push connections has no such output: revoke-key
  // refuses without it, every other command goes on.
  { name: 'PUSH_CONNECTIONS_ENDPOINT', output: 'PushConnectionsEndpoint', stack: apiStackOf, optional: true },
  { name: 'DELIVERY_DLQ_URL', output: 'DeliveryDlqUrl', stack: stateStackOf },
  { name: 'DELIVERY_QUEUE_URL', output: 'DeliveryQueueUrl', stack: stateStackOf },
] as const;

export type StageVariable = (typeof STAGE_OUTPUTS)[number]['name'];

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** An XML text node's value: the five named entities and numeric references decoded. */
export function decodeXmlText(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) => {
    if (name[0] === '#')
      return String.fromCodePoint(
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1)),
      );
    return ENTITIES[name] ?? whole;
  });
}

const field = (xml: string, name: string): string | undefined => {
  const found = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
  return found === undefined ? undefined : decodeXmlText(found);
};

/** The outputs of the one stack a DescribeStacks answer for a stack name describes, by key. */
export function outputsOfDescribeStacks(xml: string): Record<string, string> {
  const stacks = [...xml.matchAll(/<StackName>/g)].length;
  if (stacks !== 1) throw new Error(`DescribeStacks described ${stacks} stacks; one was asked for.`);
  const outputs: Record<string, string> = {};
  const section = /<Outputs>([\s\S]*?)<\/Outputs>/.exec(xml)?.[1] ?? '';
  for (const [, member] of section.matchAll(/<member>([\s\S]*?)<\/member>/g)) {
    const key = field(member!, 'OutputKey');
    const value = field(member!, 'OutputValue');
    if (key !== undefined && value !== undefined) outputs[key] = value;
  }
  return outputs;
}

/** A refused DescribeStacks as one sentence: CloudFormation's code and message. */
export function describeStacksError(status: number, xml: string): string {
  const code = field(xml, 'Code');
  const message = field(xml, 'Message');
  return `CloudFormation DescribeStacks answered ${status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`;
}

export interface AwsAccess {
  region: string;
  credentials: Credentials;
  /** AWS_ENDPOINT_URL_CLOUDFORMATION (the SDK's own variable) or AWS_ENDPOINT_URL, else the region's. */
  endpoint?: string | undefined;
}

/**
 * The credentials and region the SDK's default chain finds (environment, profile, SSO, instance
 * role), as the admin commands' API Gateway client has them, and the endpoint the SDK's variables name.
 */
export async function awsAccessFromEnvironment(): Promise<AwsAccess> {
  const config = new APIGatewayClient({}).config;
  return {
    region: await config.region(),
    credentials: () => config.credentials(),
    endpoint: process.env['AWS_ENDPOINT_URL_CLOUDFORMATION'] ?? process.env['AWS_ENDPOINT_URL'],
  };
}

/** One stack's outputs by key, as DescribeStacks gives them. */
export async function readStackOutputs(stackName: string, aws: AwsAccess): Promise<Record<string, string>> {
  const url = new URL(aws.endpoint ?? `https://cloudformation.${aws.region}.amazonaws.com/`);
  const answer = await signedRequest({
    service: 'cloudformation',
    operation: 'DescribeStacks',
    region: aws.region,
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ Action: 'DescribeStacks', Version: '2010-05-15', StackName: stackName }).toString(),
    credentials: aws.credentials,
  });
  const xml = answer.body;
  if (answer.status >= 300) throw new Error(describeStacksError(answer.status, xml));
  return outputsOfDescribeStacks(xml);
}

/** An output one of the scripts reads, by the name it gives it. */
interface WantedOutput<Name extends string> {
  name: Name;
  output: string;
  stack: (stage: string) => string;
  /** Left unset, not an error, when the stack lacks it. */
  optional?: boolean;
}

/**
 * The outputs `wanted` of a stage's stacks, by the names given, one DescribeStacks per stack. An
 * output a stack lacks is named in the error (a stage deployed before it existed: deploy it again).
 */
export async function stageOutputs<Name extends string>(
  stage: string,
  wanted: readonly WantedOutput<Name>[],
  aws: AwsAccess,
): Promise<Record<Name, string>> {
  const stacks = [...new Set(wanted.map((o) => o.stack(stage)))];
  const outputs = new Map(await Promise.all(stacks.map(async (s) => [s, await readStackOutputs(s, aws)] as const)));
  const values = {} as Record<Name, string>;
  const missing: string[] = [];
  for (const { name, output, stack, optional } of wanted) {
    const value = outputs.get(stack(stage))?.[output];
    if (value !== undefined) values[name] = value;
    else if (!optional) missing.push(`${output} of ${stack(stage)}`);
  }
  if (missing.length) throw new Error(`The stage "${stage}" has no output ${missing.join(', ')}: is it deployed?`);
  return values;
}

/** The admin commands' variables for a stage, from its stateful and API stacks' outputs. */
export const stageVariables = (stage: string, aws: AwsAccess): Promise<Record<StageVariable, string>> =>
  stageOutputs(stage, STAGE_OUTPUTS, aws);

/** What `npm run smoke -- --stage` reads: the API's base URL and the push channel's. */
export const SMOKE_OUTPUTS = [
  { name: 'url', output: 'ApiUrl', stack: apiStackOf },
  { name: 'pushUrl', output: 'PushUrl', stack: apiStackOf },
] as const;

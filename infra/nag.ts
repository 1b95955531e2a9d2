/**
 * AWS Solutions and Serverless checks run on every synth, on every stack; a new finding fails
 * `npm run synth`. These are the findings accepted on purpose, per stack, each with its reason
 * (infra/flags.test.ts synthesizes every documented flag with the checks on).
 */
import { type App, type Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { routeFunctionPrefix } from './api-invoke.ts';
import { nagArnParts } from './nag-arn.ts';
import type { MarketplaceStacks } from './stacks.ts';

type Accepted = Array<{ id: string; reason: string }>;

const XRAY_AND_STREAMS: Accepted = [
  {
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'X-Ray (tracing) and dynamodb:ListStreams (stream event source) have no resource-level permissions.',
  },
];

const STATE: Accepted = [
  {
    id: 'AwsSolutions-SQS3',
    reason:
      'These queues are themselves dead-letter and failure queues (delivery and destination DLQs, relay, search index and rollover failures, schedule DLQ, alarm e-mail DLQ).',
  },
  {
    id: 'Serverless-SQSRedrivePolicy',
    reason:
      'The queues without one are themselves the dead-letter and failure queues; each has an alarm at depth > 0, an output with its URL, and `npm run admin -- redrive`.',
  },
];

function api(stack: Stack, stage: string): Accepted {
  const { partition, region, account } = nagArnParts(stack);
  const invokable = `arn:${partition}:lambda:${region}:${account}:function:${routeFunctionPrefix(stage)}*`;
  return [
    ...XRAY_AND_STREAMS,
    {
      id: `AwsSolutions-IAM5[Resource::${invokable}]`,
      reason:
        'API Gateway invokes the route functions through one role (no permission per function); the names match only route functions of this stage (infra/api-invoke.ts).',
    },
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason: "API Gateway's own role for execution and access logs.",
    },
    {
      id: 'AwsSolutions-APIG2',
      reason:
        "Every handler validates its whole request with strict zod schemas and answers in the API's own error format.",
    },
    {
      id: 'AwsSolutions-APIG3',
      reason: 'WAF is an account-level choice; the stage has throttling limits. Attach a web ACL per environment.',
    },
    {
      id: 'AwsSolutions-APIG4',
      reason:
        'Only GET /health, /openapi.json, the event catalog and CORS preflights are open; every other method has the API key authorizer.',
    },
    {
      id: 'AwsSolutions-COG4',
      reason: 'Authentication is by API key through a Lambda TOKEN authorizer (docs/api.md), not Cognito.',
    },
    {
      id: 'Serverless-LambdaDLQ',
      reason:
        'A DLQ only serves asynchronous invocations; API Gateway invokes the routes and the authorizer synchronously, and the push worker, which the relay invokes asynchronously, has an SQS on-failure destination instead (PushFailures, with an alarm: infra/push-stack.ts).',
    },
  ];
}

/** The web stack (infra/web-stack.ts): static pages, and CDK's own function that copies them to S3. */
function web(stack: Stack): Accepted {
  const { partition, region, account } = nagArnParts(stack);
  const assets = `arn:${partition}:s3:::cdk-hnb659fds-assets-${account}-${region}/*`;
  return [
    {
      id: 'AwsSolutions-S1',
      reason: 'The bucket holds only the built pages, rewritten by every deploy; CloudFront reads it, nobody else.',
    },
    {
      id: 'AwsSolutions-CFR1',
      reason:
        'The pages are public by design (the API behind them needs a key or a portal token); no country is refused.',
    },
    { id: 'AwsSolutions-CFR2', reason: 'WAF is an account-level choice, as for the API; the pages are static files.' },
    {
      id: 'AwsSolutions-CFR3',
      reason:
        'Access logs of static files would hold nothing the API access logs do not: portal tokens ride in the fragment, which is never sent.',
    },
    {
      id: 'AwsSolutions-CFR4',
      reason:
        "The distribution uses CloudFront's default *.cloudfront.net certificate, whose minimum protocol cannot be set; giving the pages the stage's own domain and certificate (not wired yet) would allow TLS 1.2.",
    },
    ...[
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      'AwsSolutions-IAM5[Action::s3:Abort*]',
      'AwsSolutions-IAM5[Action::s3:DeleteObject*]',
      'AwsSolutions-IAM5[Action::s3:GetBucket*]',
      'AwsSolutions-IAM5[Action::s3:GetObject*]',
      'AwsSolutions-IAM5[Action::s3:List*]',
      'AwsSolutions-IAM5[Resource::<Pages127DFD1A.Arn>/*]',
      `AwsSolutions-IAM5[Resource::${assets}]`,
      'AwsSolutions-L1',
      'Serverless-LambdaLatestVersion',
      'Serverless-LambdaTracing',
    ].map((id) => ({
      id,
      reason:
        "CDK's BucketDeployment function (runtime, role and grants are CDK's): it runs at deploy time only, copying the built pages from the asset bucket to the pages bucket.",
    })),
  ];
}

const WORKERS: Accepted = [
  ...XRAY_AND_STREAMS,
  {
    id: 'AwsSolutions-IAM5[Resource::arn:*:sqs:*:*:*]',
    reason:
      "The destination sender role sends to customers' queues, which are not known at deploy time; it may not send in the service's own account (aws:ResourceAccount), and each customer's queue policy admits only sessions tagged with that customer's account (docs/webhooks.md).",
  },
  {
    id: 'AwsSolutions-IAM5[Resource::arn:*:events:*:*:event-bus/*]',
    reason:
      "The destination sender role puts events on customers' buses, which are not known at deploy time; not in the service's own account, and each bus policy admits only sessions tagged with its customer's account.",
  },
  {
    id: 'AwsSolutions-IAM5[Resource::arn:*:kms:*:*:key/*]',
    reason:
      "Customers' queues and buses may be encrypted with their own KMS keys, not known at deploy time; the sender role may use a key only through SQS or EventBridge (kms:ViaService), never in the service's own account, and each customer's key policy admits only sessions tagged with that customer's account (the answer's key_policy_statement).",
  },
  {
    id: 'Serverless-LambdaDLQ',
    reason:
      "A DLQ only serves asynchronous invocations: the relay's and the search indexer's stream mappings have SQS on-failure destinations, the delivery queue a redrive policy to its DLQ, and the trend rollover an async on-failure destination plus a DLQ on its EventBridge target.",
  },
  {
    id: 'Serverless-LambdaEventSourceMappingDestination',
    reason:
      "SQS event source mappings take no on-failure destination: a message that keeps failing goes to the delivery queue's redrive DLQ (maxReceiveCount 20), which has an alarm.",
  },
];

export function applyNagChecks(app: App, stacks: MarketplaceStacks): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  const accepted: Array<[Stack, Accepted]> = [
    [stacks.state, STATE],
    [stacks.api, api(stacks.api, stacks.config.name)],
    [stacks.workers, WORKERS],
    [stacks.api.web, web(stacks.api)],
  ];
  for (const [stack, findings] of accepted) for (const finding of findings) Validations.of(stack).acknowledge(finding);
}

/**
 * AWS Solutions and Serverless checks run on every synth; a new finding fails `npm run synth`. These are the
 * findings accepted on purpose, each with its reason.
 */
import { Validations, type App, type Stack } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';

const ACCEPTED: Array<{ id: string; reason: string }> = [
  { id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]', reason: 'The standard Lambda logging policy: writes to the function\'s own log group only in practice.' },
  { id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]', reason: 'API Gateway\'s own role for execution and access logs.' },
  { id: 'AwsSolutions-IAM5[Resource::<TableCD117FA1.Arn>/index/*]', reason: 'The indexes of this one table; every list route reads one of them.' },
  { id: 'AwsSolutions-IAM5[Resource::*]', reason: 'dynamodb:ListStreams (stream event source) and X-Ray have no resource-level permissions.' },
  { id: 'AwsSolutions-APIG2', reason: 'Every handler validates its whole request with strict zod schemas and answers in the API\'s own error format.' },
  { id: 'AwsSolutions-APIG3', reason: 'WAF is an account-level choice; the stage has throttling limits. Attach a web ACL per environment.' },
  { id: 'AwsSolutions-APIG4', reason: 'Only GET /health and CORS preflights are open; every other method has the API key authorizer.' },
  { id: 'AwsSolutions-COG4', reason: 'Authentication is by API key through a Lambda TOKEN authorizer (docs/api.md), not Cognito.' },
  { id: 'AwsSolutions-SQS3', reason: 'These queues are themselves dead-letter queues.' },
  { id: 'Serverless-SQSRedrivePolicy', reason: 'The four queues without one are themselves the dead-letter and failure queues (delivery DLQ, relay and rollover failures, schedule DLQ); each has an alarm at depth > 0 and `npm run admin -- redrive`.' },
  {
    id: 'Serverless-LambdaDLQ',
    reason: 'A DLQ only serves asynchronous invocations. Routes and the authorizer are invoked synchronously by API Gateway; the relay\'s stream mapping has an SQS on-failure destination, the delivery queue a redrive policy to its DLQ, and the trend rollover an async on-failure destination plus a DLQ on its EventBridge target.',
  },
  { id: 'Serverless-LambdaEventSourceMappingDestination', reason: 'SQS event source mappings take no on-failure destination: a message that keeps failing goes to the delivery queue\'s redrive DLQ (maxReceiveCount 20), which has an alarm.' },
];

export function applyNagChecks(app: App, stack: Stack): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  for (const finding of ACCEPTED) Validations.of(stack).acknowledge(finding);
}

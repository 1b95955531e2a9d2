import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { RELAY_FILTER_PATTERN } from '../lib/events/stream-filter.ts';
import { SEARCH_INDEX_FILTER_PATTERN } from '../lib/marketplace/search/search-indexer.ts';
import { actionsOf } from '../lib/function-grants.ts';
import { routeGrant, routes, workerGrants, workers } from '../lib/routes.ts';
import { indexList } from '../lib/store/table.ts';
import { applyNagChecks } from './nag.ts';
import { MarketplaceStack } from './stack.ts';
import { stageConfig } from './stage-config.ts';

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

let resources: Resources;
let template: Template;

beforeAll(() => {
  // Skip esbuild bundling here (`npm run synth` does it): this test is about the stack's shape.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new MarketplaceStack(app, 'Test', { config: { ...stageConfig('dev'), corsOrigins: ['https://app.example.com', 'https://admin.example.com'] } });
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources as Resources;
}, 120_000);

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

/** Full path of an API Gateway resource, following ParentId up to the root. */
function pathOf(logicalId: string | undefined): string {
  if (!logicalId) return '';
  const resource = resources[logicalId];
  if (!resource || resource.Type !== 'AWS::ApiGateway::Resource') return '';
  return `${pathOf(resource.Properties['ParentId']?.Ref)}/${resource.Properties['PathPart']}`;
}

describe('infra stack', () => {
  it('makes one Lambda function per route plus the authorizer, relay, search indexer, delivery and trend rollover workers', () => {
    const functions = ofType('AWS::Lambda::Function');
    expect(functions).toHaveLength(routes.length + Object.keys(workers).length);
    for (const route of routes) {
      const id = `${route.name[0]!.toUpperCase()}${route.name.slice(1)}Function`;
      expect(functions.some(([logicalId]) => logicalId.startsWith(id)), `function for ${route.name}`).toBe(true);
    }
    for (const [, fn] of functions) expect(fn.Properties['Runtime']).toBe('nodejs24.x');
  });

  it('exposes every route of the table with its method and path, and nothing else', () => {
    const methods = ofType('AWS::ApiGateway::Method')
      .map(([, m]) => m.Properties)
      .filter((p) => p['HttpMethod'] !== 'OPTIONS')
      .map((p) => `${p['HttpMethod']} ${pathOf(p['ResourceId']?.Ref) || '/'}`)
      .sort();
    expect(methods).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('puts the authorizer in front of every route but /health, /openapi.json and the event catalog', () => {
    const open = routes.filter((r) => !r.auth).map((r) => r.path);
    expect(open.sort()).toEqual(['/api/v1/event-types', '/health', '/openapi.json']);
    for (const [, m] of ofType('AWS::ApiGateway::Method')) {
      const p = m.Properties;
      if (p['HttpMethod'] === 'OPTIONS') continue;
      const isOpen = open.includes(pathOf(p['ResourceId']?.Ref));
      expect(p['AuthorizationType'], `${p['HttpMethod']} ${pathOf(p['ResourceId']?.Ref)}`).toBe(isOpen ? 'NONE' : 'CUSTOM');
    }
  });

  it('never grants Scan, and grants writes only to routes that write', () => {
    const policies = ofType('AWS::IAM::Policy').flatMap(([, p]) => p.Properties['PolicyDocument'].Statement as Array<{ Action: string | string[] }>);
    const actions = policies.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions).not.toContain('dynamodb:*');
    const readOnly = routes.filter((r) => r.access === 'read').map((r) => `${r.name[0]!.toUpperCase()}${r.name.slice(1)}Function`);
    for (const [logicalId, policy] of ofType('AWS::IAM::Policy')) {
      if (!readOnly.some((id) => logicalId.startsWith(id))) continue;
      const granted = (policy.Properties['PolicyDocument'].Statement as Array<{ Action: string | string[] }>).flatMap((s) => s.Action);
      expect(granted, logicalId).not.toContain('dynamodb:PutItem');
      expect(granted, logicalId).not.toContain('dynamodb:UpdateItem');
    }
  });

  it("grants each function exactly its row's actions on the table and the delivery queue, from the list the local runtime enforces (lib/function-grants.ts)", () => {
    type Statement = { Action: string | string[]; Resource: unknown };
    const functions = [...routes.map((r) => [r.name, routeGrant(r)] as const), ...Object.entries(workerGrants)];
    // The stream's read actions come with the event source, not with the row.
    const streamActions = ['dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:DescribeStream', 'dynamodb:ListStreams'];
    for (const [name, grant] of functions) {
      const prefix = `${name[0]!.toUpperCase()}${name.slice(1)}Function`;
      const statements = ofType('AWS::IAM::Policy')
        .filter(([logicalId]) => logicalId.startsWith(prefix))
        .flatMap(([, p]) => p.Properties['PolicyDocument'].Statement as Statement[]);
      const actionsOn = (fits: (resource: string) => boolean) =>
        statements.filter((st) => fits(JSON.stringify(st.Resource))).flatMap((st) => (Array.isArray(st.Action) ? st.Action : [st.Action]));
      const table = actionsOn((r) => r.includes('Table')).filter((a) => a.startsWith('dynamodb:') && !streamActions.includes(a));
      const queue = actionsOn((r) => r.includes('"DeliveryQueue')).filter((a) => a.startsWith('sqs:'));
      expect(new Set([...table, ...queue]), name).toEqual(new Set(actionsOf(grant)));
    }
  });

  it("answers a CORS preflight on every route's path with the stage's origins and the API's headers", () => {
    const options = ofType('AWS::ApiGateway::Method').filter(([, m]) => m.Properties['HttpMethod'] === 'OPTIONS');
    const preflightPaths = new Set(options.map(([, m]) => pathOf(m.Properties['ResourceId']?.Ref)));
    for (const route of routes) expect(preflightPaths.has(route.path), route.path).toBe(true);
    const answer = options[0]![1].Properties['Integration']['IntegrationResponses'][0]['ResponseParameters'] as Record<string, string>;
    expect(answer['method.response.header.Access-Control-Allow-Headers']).toBe("'Authorization,Content-Type,Idempotency-Key,Last-Event-ID'");
    expect(answer['method.response.header.Access-Control-Allow-Origin']).toBe("'https://app.example.com'");
    // With several origins the mock integration answers the one the request named when it is listed.
    expect(options[0]![1].Properties['Integration']['IntegrationResponses'][0]['ResponseTemplates']['application/json']).toContain('$origin == "https://admin.example.com"');
  });

  it('gives every handler the CORS origins and every gateway response a CORS header', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties['Environment']['Variables']['CORS_ALLOWED_ORIGINS'], id).toBe('https://app.example.com,https://admin.example.com');
    }
    const responses = ofType('AWS::ApiGateway::GatewayResponse');
    expect(responses.length).toBeGreaterThan(5);
    for (const [id, r] of responses) {
      expect(r.Properties['ResponseParameters']['gatewayresponse.header.Access-Control-Allow-Origin'], id).toBe('method.request.header.Origin');
    }
  });

  it('gives the verify function more than the 10 s handshake deadline', () => {
    const verify = ofType('AWS::Lambda::Function').find(([id]) => id.startsWith('VerifyWebhookFunction'));
    expect(verify?.[1].Properties['Timeout']).toBeGreaterThan(10);
  });

  it('streams the server-sent events route', () => {
    const stream = routes.find((r) => r.streaming)!;
    const method = ofType('AWS::ApiGateway::Method').find(
      ([, m]) => m.Properties['HttpMethod'] === stream.method && pathOf(m.Properties['ResourceId']?.Ref) === stream.path,
    );
    expect(method?.[1].Properties['Integration']['ResponseTransferMode']).toBe('STREAM');
  });

  it('feeds the relay only new event rows and the delivery function from SQS with partial batch failures', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify(RELAY_FILTER_PATTERN) }] },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { FunctionResponseTypes: ['ReportBatchItemFailures'], BatchSize: 10 });
    template.hasResourceProperties('AWS::SQS::Queue', { RedrivePolicy: { maxReceiveCount: 20 } });
  });

  it('feeds the search indexer only template items, with partial batch failures kept in a queue', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify(SEARCH_INDEX_FILTER_PATTERN) }] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FunctionName: { Ref: Match.stringLikeRegexp('^SearchIndexerFunction') },
    });
  });

  it('runs the trend rollover daily at 00:05 UTC', () => {
    const rules = ofType('AWS::Events::Rule');
    expect(rules).toHaveLength(1);
    const [ruleId, rule] = rules[0]!;
    expect(ruleId).toMatch(/^TrendRolloverSchedule/);
    expect(rule.Properties['ScheduleExpression']).toBe('cron(5 0 * * ? *)');
    const target = rule.Properties['Targets'][0]['Arn']['Fn::GetAtt'][0] as string;
    expect(target).toMatch(/^TrendRolloverFunction/);
    // A run that fails after Lambda's retries is kept in a queue, not dropped.
    const invokeConfigs = ofType('AWS::Lambda::EventInvokeConfig');
    expect(invokeConfigs).toHaveLength(1);
    const invokeConfig = invokeConfigs[0]![1];
    expect(invokeConfig.Properties['FunctionName']['Ref']).toMatch(/^TrendRolloverFunction/);
    expect(invokeConfig.Properties['MaximumRetryAttempts']).toBe(2);
    expect(invokeConfig.Properties['DestinationConfig']['OnFailure']['Destination']['Fn::GetAtt'][0]).toMatch(/^TrendRolloverFailures/);
  });

  it('creates the table with its stream, TTL and every index of lib/store/table.ts', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
    });
    const tables = ofType('AWS::DynamoDB::Table');
    expect(tables).toHaveLength(1);
    const table = tables[0]![1];
    const names = (table.Properties['GlobalSecondaryIndexes'] as Array<{ IndexName: string }>).map((i) => i.IndexName).sort();
    expect(names).toEqual(indexList.map((i) => i.name).sort());
    // Key attribute types must match what the code writes (numbers for counters used as sort keys).
    const types = Object.fromEntries((table.Properties['AttributeDefinitions'] as Array<{ AttributeName: string; AttributeType: string }>).map((a) => [a.AttributeName, a.AttributeType]));
    for (const index of indexList) expect(types[index.sortKey], index.sortKey).toBe(index.sortKeyType ?? 'S');
  });

  it('passes the AWS Solutions (cdk-nag) checks, apart from the findings accepted with a reason in infra/nag.ts', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    applyNagChecks(app, new MarketplaceStack(app, 'Nag', { config: stageConfig('prod') }));
    expect(() => app.synth()).not.toThrow();
  });
});

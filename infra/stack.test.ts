import { Stack } from 'aws-cdk-lib';
import type { CfnMethod } from 'aws-cdk-lib/aws-apigateway';
import { beforeAll, describe, expect, it } from 'vitest';
import { PUSH } from '../lib/core/settings.ts';
import { RELAY_STREAM_FILTERS } from '../lib/events/stream-filter.ts';
import { actionsOf } from '../lib/function-grants.ts';
import { SEARCH_INDEX_FILTER_PATTERN } from '../lib/marketplace/search/search-indexer.ts';
import { routeGrant, routes, socketRouteGrant, socketRoutes, workerGrants, workers } from '../lib/routes.ts';
import { indexList } from '../lib/store/table.ts';
import { routeFunctionName } from './api-invoke.ts';
import { functionIdOf, pushFunctionName } from './lambda-function.ts';
import { actionsIn, type Synthesized, statementsOf, synthApp } from './test-synth.ts';

let synth: Synthesized;

beforeAll(() => {
  synth = synthApp({ stage: 'dev', context: { corsOrigins: 'https://app.example.com,https://admin.example.com' } });
}, 120_000);

const ofType = (type: string) => synth.resources.filter((r) => r.Type === type);
/**
 * The service's own functions: the web stack's bucket deployment (infra/web-stack.ts) brings CDK's
 * function that copies the pages to S3, which is no route or worker of ours.
 */
const serviceFunctions = () =>
  ofType('AWS::Lambda::Function').filter((f) => !f.id.startsWith('CustomCDKBucketDeployment'));
/** The API's methods as constructs: their paths are whole even when the resource is in another (nested) stack. */
const methods = () => synth.stacks.api.api.methods;

describe('infra stacks', () => {
  it('makes one Lambda function per route and per push channel route plus the authorizer, relay, search indexer, delivery, trend rollover and push workers', () => {
    const functions = serviceFunctions();
    expect(ofType('AWS::Lambda::Function')).toHaveLength(functions.length + 1);
    expect(functions).toHaveLength(routes.length + socketRoutes.length + Object.keys(workers).length);
    for (const name of [...routes.map((r) => r.name), ...socketRoutes.map((r) => r.name), ...Object.keys(workers)]) {
      expect(
        functions.some((f) => f.id.startsWith(functionIdOf(name))),
        `function for ${name}`,
      ).toBe(true);
    }
    for (const fn of functions) expect(fn.Properties['Runtime']).toBe('nodejs24.x');
  });

  it('exposes every route of the table with its method and path, and nothing else', () => {
    const exposed = methods()
      .filter((m) => m.httpMethod !== 'OPTIONS')
      .map((m) => `${m.httpMethod} ${m.resource.path}`)
      .sort();
    expect(exposed).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
    expect(ofType('AWS::ApiGateway::Method').filter((m) => m.Properties['HttpMethod'] !== 'OPTIONS')).toHaveLength(
      routes.length,
    );
  });

  it('puts the authorizer in front of every route but /health, /openapi.json, the event catalog and the signing keys', () => {
    const open = routes.filter((r) => !r.auth).map((r) => r.path);
    expect(open.sort()).toEqual(['/api/v1/event-types', '/api/v1/webhook-keys/{id}', '/health', '/openapi.json']);
    for (const m of methods().filter((m) => m.httpMethod !== 'OPTIONS')) {
      const cfn = m.node.defaultChild as CfnMethod;
      expect(cfn.authorizationType, `${m.httpMethod} ${m.resource.path}`).toBe(
        open.includes(m.resource.path) ? 'NONE' : 'CUSTOM',
      );
    }
  });

  it('invokes each route function through the one API role (no Lambda permission per route), which may invoke only route functions', () => {
    // The authorizer's permission is the only one the REST API needs, the workers' schedule has its
    // own, and the WebSocket API one per push channel route (infra/push-stack.ts: three, not one per REST route).
    const permissions = ofType('AWS::Lambda::Permission');
    expect(permissions.map((p) => p.Properties['Principal']).sort()).toEqual([
      ...Array(1 + socketRoutes.length).fill('apigateway.amazonaws.com'),
      'events.amazonaws.com',
    ]);
    for (const route of socketRoutes)
      expect(
        permissions.filter((p) => JSON.stringify(p.Properties['FunctionName']).includes(functionIdOf(route.name))),
        route.name,
      ).toHaveLength(1);
    const invoke = ofType('AWS::IAM::Policy').filter((p) => p.id.startsWith('ApiInvokeRole'));
    expect(invoke).toHaveLength(1);
    const [statement] = invoke[0]!.Properties['PolicyDocument'].Statement;
    expect(statement.Action).toBe('lambda:InvokeFunction');
    const pattern = JSON.stringify(statement.Resource).match(/function:([^"]+)\*/)![1]!;
    for (const route of routes) expect(routeFunctionName('dev', route.name).startsWith(pattern), route.name).toBe(true);
    for (const fn of ofType('AWS::Lambda::Function')) {
      const name = fn.Properties['FunctionName'] as string | undefined;
      // Workers and the authorizer keep generated names, which never start with the route prefix; the
      // push worker is named so the relay can invoke it, outside the prefix, so the API's role cannot.
      if (name === undefined) continue;
      expect(name.startsWith(pattern) || name === pushFunctionName('dev'), fn.id).toBe(true);
      if (name === pushFunctionName('dev')) expect(name.startsWith(pattern)).toBe(false);
    }
    const integrations = ofType('AWS::ApiGateway::Method').filter(
      (m) => m.Properties['Integration']?.['Type'] === 'AWS_PROXY',
    );
    expect(integrations).toHaveLength(routes.length);
    for (const m of integrations)
      expect(JSON.stringify(m.Properties['Integration']['Credentials']), m.id).toMatch(/ApiInvokeRole/);
  });

  it('never grants Scan, and grants writes only to routes that write', () => {
    const actions = actionsIn(ofType('AWS::IAM::Policy').flatMap((p) => p.Properties['PolicyDocument'].Statement));
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions).not.toContain('dynamodb:*');
    for (const route of routes.filter((r) => r.access === 'read')) {
      const granted = actionsIn(statementsOf(synth, functionIdOf(route.name)));
      expect(granted, route.name).not.toContain('dynamodb:PutItem');
      expect(granted, route.name).not.toContain('dynamodb:UpdateItem');
    }
  });

  it("grants each function exactly its row's actions on the table, the delivery queues, the signing key, the sender role and the push channel's connections, from the list the local runtime enforces (lib/function-grants.ts)", () => {
    const functions = [
      ...routes.map((r) => [r.name, routeGrant(r)] as const),
      ...socketRoutes.map((r) => [r.name, socketRouteGrant(r)] as const),
      ...Object.entries(workerGrants),
    ];
    // The stream's read actions come with the event source, not with the row.
    const streamActions = [
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
      'dynamodb:DescribeStream',
      'dynamodb:ListStreams',
    ];
    for (const [name, grant] of functions) {
      const statements = statementsOf(synth, functionIdOf(name));
      const actionsOn = (fits: (resource: string) => boolean) =>
        actionsIn(statements.filter((st) => fits(JSON.stringify(st.Resource))));
      const table = actionsOn((r) => r.includes('Table')).filter(
        (a) => a.startsWith('dynamodb:') && !streamActions.includes(a),
      );
      const queue = actionsOn((r) => r.includes('DeliveryQueue')).filter((a) => a.startsWith('sqs:'));
      const signingKey = actionsOn((r) => r.includes('WebhookSigningKey')).filter((a) => a.startsWith('kms:'));
      // Sessions of the destination sender role (lib/destinations/session.ts): the grant's `destinations`.
      const sender = actionsOn((r) => r.includes('DestinationSenderRole')).filter((a) => a.startsWith('sts:'));
      const connections = actionsOn((r) => r.includes('/@connections/')).filter((a) => a.startsWith('execute-api:'));
      // The relay's hand-off: the push worker by its fixed name, and no other function.
      const invokes = actionsOn((r) => r.includes(`:function:${pushFunctionName('dev')}"`)).filter((a) =>
        a.startsWith('lambda:'),
      );
      expect(
        actionsOn(() => true).filter((a) => a.startsWith('lambda:')),
        name,
      ).toEqual(invokes);
      expect(new Set([...table, ...queue, ...signingKey, ...sender, ...connections, ...invokes]), name).toEqual(
        new Set(actionsOf(grant)),
      );
      // Only the functions whose row names the key get any KMS action.
      if (!grant.signingKey)
        expect(
          actionsOn(() => true).filter((a) => a.startsWith('kms:')),
          name,
        ).toEqual([]);
      // Whatever uses the delivery queue uses the destinations' queue the same way.
      const destinationQueue = actionsOn((r) => r.includes('DestinationQueue')).filter((a) => a.startsWith('sqs:'));
      expect(new Set(destinationQueue), name).toEqual(new Set(queue));
    }
  });

  it("makes the destination sender role assumable only by the destinations' worker, only with the account tag, and never onto the service's own account", () => {
    const [role] = ofType('AWS::IAM::Role').filter(
      (r) => r.Properties['RoleName'] === 'template-marketplace-dev-destination-sender',
    );
    expect(role).toBeDefined();
    const trust = JSON.stringify(role!.Properties['AssumeRolePolicyDocument']);
    expect(trust).toContain('"sts:AssumeRole"');
    expect(trust).toContain('"sts:TagSession"');
    expect(trust).toContain('"aws:RequestTag/marketplace-account":"false"');
    expect(trust).toContain('"aws:TagKeys":["marketplace-account"]');
    expect(trust).toContain('DeliverToDestinationsRole');
    const policies = ofType('AWS::IAM::Policy').filter((p) => JSON.stringify(p.Properties['Roles']).includes(role!.id));
    const statements = policies.flatMap((p) => (p.Properties['PolicyDocument'] as { Statement: unknown[] }).Statement);
    expect(statements).toHaveLength(3);
    for (const st of statements) expect(JSON.stringify(st)).toContain('"aws:ResourceAccount"');
    // A customer's own KMS key, only as SQS or EventBridge use it (cross-account KMS needs this side too).
    const onKeys = statements.find((st) => JSON.stringify(st).includes('kms:Decrypt')) as Record<string, unknown>;
    expect(new Set(onKeys['Action'] as string[])).toEqual(new Set(['kms:GenerateDataKey', 'kms:Decrypt']));
    expect(onKeys['Condition']).toMatchObject({
      StringLike: { 'kms:ViaService': ['sqs.*.amazonaws.com', 'events.*.amazonaws.com'] },
    });
    // Every function of ours knows its ARN (the routes show it in the policy a customer applies).
    for (const fn of serviceFunctions())
      expect(JSON.stringify(fn.Properties['Environment'])).toContain('template-marketplace-dev-destination-sender');
  });

  it('names each index in the table grants instead of a wildcard', () => {
    for (const route of routes.filter((r) => r.access !== 'none')) {
      const onTable = statementsOf(synth, functionIdOf(route.name)).filter((st) =>
        JSON.stringify(st.Resource).includes('Table'),
      );
      const resources = JSON.stringify(onTable.map((st) => st.Resource));
      expect(resources, route.name).not.toContain('/index/*');
      for (const index of indexList) expect(resources, `${route.name} ${index.name}`).toContain(`/index/${index.name}`);
    }
  });

  it("answers a CORS preflight on every route's path with the stage's origins and the API's headers", () => {
    const preflights = methods().filter((m) => m.httpMethod === 'OPTIONS');
    const preflightPaths = new Set(preflights.map((m) => m.resource.path));
    for (const route of routes) expect(preflightPaths.has(route.path), route.path).toBe(true);
    const options = ofType('AWS::ApiGateway::Method').filter((m) => m.Properties['HttpMethod'] === 'OPTIONS');
    expect(options).toHaveLength(preflights.length);
    const answer = options[0]!.Properties['Integration']['IntegrationResponses'][0]['ResponseParameters'] as Record<
      string,
      string
    >;
    expect(answer['method.response.header.Access-Control-Allow-Headers']).toBe(
      "'Authorization,Content-Type,Idempotency-Key,Last-Event-ID,traceparent,tracestate'",
    );
    expect(answer['method.response.header.Access-Control-Allow-Origin']).toBe("'https://app.example.com'");
    // With several origins the mock integration answers the one the request named when it is listed.
    expect(
      options[0]!.Properties['Integration']['IntegrationResponses'][0]['ResponseTemplates']['application/json'],
    ).toContain('$origin == "https://admin.example.com"');
  });

  it('gives every handler the CORS origins and every gateway response a CORS header', () => {
    for (const fn of serviceFunctions()) {
      expect(fn.Properties['Environment']['Variables']['CORS_ALLOWED_ORIGINS'], fn.id).toBe(
        'https://app.example.com,https://admin.example.com',
      );
    }
    const responses = ofType('AWS::ApiGateway::GatewayResponse');
    expect(responses.length).toBeGreaterThan(5);
    for (const r of responses) {
      expect(r.Properties['ResponseParameters']['gatewayresponse.header.Access-Control-Allow-Origin'], r.id).toBe(
        'method.request.header.Origin',
      );
    }
  });

  it('serves the pages from a private bucket through CloudFront, with a CSP that forbids inline script, and points portal links there', () => {
    const [bucket] = ofType('AWS::S3::Bucket').filter((b) => b.id.startsWith('Pages'));
    expect(bucket?.Properties['PublicAccessBlockConfiguration']).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    const [policy] = ofType('AWS::CloudFront::ResponseHeadersPolicy');
    const csp = JSON.stringify(
      policy?.Properties['ResponseHeadersPolicyConfig']['SecurityHeadersConfig']['ContentSecurityPolicy'],
    );
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(ofType('AWS::CloudFront::Distribution')).toHaveLength(1);
    const portalLinks = serviceFunctions().find((f) => f.id.startsWith(functionIdOf('createPortalLink')));
    expect(JSON.stringify(portalLinks?.Properties['Environment']['Variables']['PORTAL_URL'])).toContain('/portal/');
  });

  it('caches no authorizer answer, so a revoked key or portal link is refused from its next request', () => {
    const authorizers = ofType('AWS::ApiGateway::Authorizer');
    expect(authorizers).toHaveLength(1);
    // 0 turns API Gateway's cache off; absent, it would cache each token's Allow for 300 s.
    expect(authorizers[0]?.Properties['AuthorizerResultTtlInSeconds']).toBe(0);
  });

  it('gives the verify function more than the 10 s handshake deadline', () => {
    const verify = ofType('AWS::Lambda::Function').find((f) => f.id.startsWith('VerifyWebhookFunction'));
    expect(verify?.Properties['Timeout']).toBeGreaterThan(10);
  });

  it('streams the server-sent events route', () => {
    const stream = routes.find((r) => r.streaming)!;
    const method = methods().find((m) => m.httpMethod === stream.method && m.resource.path === stream.path)!;
    const integration = (method.node.defaultChild as CfnMethod).integration as {
      responseTransferMode: string;
      uri: unknown;
    };
    expect(integration.responseTransferMode).toBe('STREAM');
    expect(Stack.of(method).resolve(integration.uri)['Fn::Join'][1].join('')).toContain(
      '/response-streaming-invocations',
    );
  });

  it('feeds the relay only new event rows, gap markers and its request rows, and the delivery function from SQS with partial batch failures', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').map((m) => m.Properties);
    expect(
      mappings.some(
        (m) =>
          JSON.stringify(m['FilterCriteria']) ===
          JSON.stringify({ Filters: RELAY_STREAM_FILTERS.map((p) => ({ Pattern: JSON.stringify(p) })) }),
      ),
    ).toBe(true);
    expect(
      mappings.some(
        (m) =>
          JSON.stringify(m['FunctionResponseTypes']) === '["ReportBatchItemFailures"]' &&
          m['BatchSize'] === 10 &&
          m['ScalingConfig'],
      ),
    ).toBe(true);
    expect(ofType('AWS::SQS::Queue').some((q) => q.Properties['RedrivePolicy']?.['maxReceiveCount'] === 20)).toBe(true);
  });

  it('serves the push channel: a WebSocket route per socket route, and the push worker invoked by the relay, its failed runs kept', () => {
    const routeKeys = ofType('AWS::ApiGatewayV2::Route').map((r) => r.Properties['RouteKey']);
    expect(routeKeys.sort()).toEqual(socketRoutes.map((r) => r.routeKey).sort());
    const push = serviceFunctions().find((f) => f.id.startsWith(functionIdOf('push')))!;
    // Named, so the relay names it (PUSH_FUNCTION_NAME) without a reference into the API stack.
    expect(push.Properties['FunctionName']).toBe(pushFunctionName('dev'));
    const relay = serviceFunctions().find((f) => f.id.startsWith(functionIdOf('relay')))!;
    expect(JSON.stringify(relay.Properties['Environment'])).toContain(
      `"PUSH_FUNCTION_NAME":"${pushFunctionName('dev')}"`,
    );
    // No stream mapping of its own: the stream's readers are the relay and the search indexer (infra/streams.test.ts).
    expect(
      ofType('AWS::Lambda::EventSourceMapping').filter((m) =>
        JSON.stringify(m.Properties['FunctionName']).includes(functionIdOf('push')),
      ),
    ).toEqual([]);
    const [config] = ofType('AWS::Lambda::EventInvokeConfig').filter((c) =>
      JSON.stringify(c.Properties['FunctionName']).includes(functionIdOf('push')),
    );
    expect(config!.Properties['MaximumRetryAttempts']).toBe(PUSH.handOffRetryAttempts);
    expect(JSON.stringify(config!.Properties['DestinationConfig'])).toContain('PushFailures');
  });

  it('feeds the search indexer only template items, with partial batch failures kept in a queue', () => {
    const mapping = ofType('AWS::Lambda::EventSourceMapping').find((m) =>
      JSON.stringify(m.Properties['FunctionName']).includes('SearchIndexerFunction'),
    )!;
    expect(mapping.Properties['FilterCriteria']).toEqual({
      Filters: [{ Pattern: JSON.stringify(SEARCH_INDEX_FILTER_PATTERN) }],
    });
    expect(mapping.Properties['FunctionResponseTypes']).toEqual(['ReportBatchItemFailures']);
    expect(JSON.stringify(mapping.Properties['DestinationConfig'])).toContain('SearchIndexFailures');
  });

  it('runs the trend rollover daily at 00:05 UTC', () => {
    const rules = ofType('AWS::Events::Rule');
    expect(rules).toHaveLength(1);
    const rule = rules[0]!;
    expect(rule.id).toMatch(/^TrendRolloverSchedule/);
    expect(rule.Properties['ScheduleExpression']).toBe('cron(5 0 * * ? *)');
    expect(rule.Properties['Targets'][0]['Arn']['Fn::GetAtt'][0]).toMatch(/^TrendRolloverFunction/);
    // A run that fails after Lambda's retries is kept in a queue, not dropped.
    const invokeConfigs = ofType('AWS::Lambda::EventInvokeConfig').filter(
      (c) => !JSON.stringify(c.Properties['FunctionName']).includes(functionIdOf('push')),
    );
    expect(invokeConfigs).toHaveLength(1);
    const invokeConfig = invokeConfigs[0]!;
    expect(invokeConfig.Properties['FunctionName']['Ref']).toMatch(/^TrendRolloverFunction/);
    expect(invokeConfig.Properties['MaximumRetryAttempts']).toBe(2);
    expect(JSON.stringify(invokeConfig.Properties['DestinationConfig']['OnFailure']['Destination'])).toContain(
      'TrendRolloverFailures',
    );
  });

  it('creates the table with its stream, TTL and every index of lib/store/table.ts', () => {
    const tables = ofType('AWS::DynamoDB::Table');
    expect(tables).toHaveLength(1);
    const table = tables[0]!;
    expect(table.Properties['StreamSpecification']).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(table.Properties['TimeToLiveSpecification']).toEqual({ AttributeName: 'expires_at', Enabled: true });
    const names = (table.Properties['GlobalSecondaryIndexes'] as Array<{ IndexName: string }>)
      .map((i) => i.IndexName)
      .sort();
    expect(names).toEqual(indexList.map((i) => i.name).sort());
    // Key attribute types must match what the code writes (numbers for counters used as sort keys).
    const types = Object.fromEntries(
      (table.Properties['AttributeDefinitions'] as Array<{ AttributeName: string; AttributeType: string }>).map((a) => [
        a.AttributeName,
        a.AttributeType,
      ]),
    );
    for (const index of indexList) expect(types[index.sortKey], index.sortKey).toBe(index.sortKeyType ?? 'S');
  });
});

import { readFileSync } from 'node:fs';
import { CURRENTLY_RECOMMENDED_FLAGS } from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';
import { CDK_JSON } from './cdk-json.ts';
import { concurrencyNeeds, DEFAULT_STAGE, STAGES, stageConfig, stageNameOf } from './stage-config.ts';
import { synthApp } from './test-synth.ts';

const CERT = 'arn:aws:acm:eu-west-1:123456789012:certificate/00000000-0000-0000-0000-000000000000';

const ofType = (synth: ReturnType<typeof synthApp>, type: string) => synth.resources.filter((r) => r.Type === type);

describe('stages', () => {
  it('gives each stage its own stacks, API stage name and settings', () => {
    const dev = synthApp({ stage: 'dev' });
    expect(dev.stacks.all.map((s) => s.stackName)).toEqual([
      'TemplateMarketplace-dev',
      'TemplateMarketplace-dev-Api',
      'TemplateMarketplace-dev-Workers',
      'TemplateMarketplace-dev-Monitoring',
    ]);
    expect(dev.stacks.all.map((s) => s.terminationProtection)).toEqual([false, false, false, false]);
    const [stage] = ofType(dev, 'AWS::ApiGateway::Stage');
    expect(stage!.Properties['StageName']).toBe('dev');
    // The stage's own throttle on every method; the keyless routes' own throttles beside it (infra/keyless-throttles.ts).
    const settings = stage!.Properties['MethodSettings'] as Array<Record<string, unknown>>;
    expect(settings.filter((s) => s['ResourcePath'] === '/*')).toEqual([
      expect.objectContaining({
        ThrottlingRateLimit: STAGES['dev']!.throttle.rateLimit,
        ThrottlingBurstLimit: STAGES['dev']!.throttle.burstLimit,
      }),
    ]);
    for (const fn of ofType(dev, 'AWS::Lambda::Function'))
      expect(fn.Properties['Tags'], fn.id).toEqual(
        expect.arrayContaining([
          { Key: 'stage', Value: 'dev' },
          { Key: 'app', Value: 'template-marketplace' },
        ]),
      );
    expect(ofType(dev, 'AWS::ApiGateway::DomainName')).toEqual([]);
    expect(ofType(dev, 'AWS::SNS::Subscription')).toEqual([]);
    // A dev stage's queues and topic go with its stack; the table never does.
    for (const queue of ofType(dev, 'AWS::SQS::Queue'))
      expect(queue.DeletionPolicy ?? 'Delete', queue.id).toBe('Delete');
    expect(ofType(dev, 'AWS::DynamoDB::Table')[0]!.DeletionPolicy).toBe('Retain');
  }, 120_000);

  it('protects the prod stateful stack from termination and retains its table, queues and topic', () => {
    const prod = synthApp({ stage: 'prod' });
    expect(prod.stacks.state.terminationProtection).toBe(true);
    // The stateless stacks can be replaced; their logs are retained (infra/lambda-function.ts).
    expect([prod.stacks.api, prod.stacks.workers, prod.stacks.monitoring].map((s) => s.terminationProtection)).toEqual([
      false,
      false,
      false,
    ]);
    const state = prod.resources.filter((r) => r.stack === 'TemplateMarketplace-prod');
    const kept = state.filter((r) => ['AWS::DynamoDB::Table', 'AWS::SQS::Queue', 'AWS::SNS::Topic'].includes(r.Type));
    expect(kept.length).toBeGreaterThan(6);
    for (const resource of kept) expect(resource.DeletionPolicy, resource.id).toBe('Retain');
  }, 120_000);

  it('serves the API at the root of a custom domain and subscribes the alarm e-mail when configured', () => {
    const synth = synthApp({
      stage: 'staging',
      context: { domainName: 'api.example.com', certificateArn: CERT, alarmEmail: 'ops@example.com' },
    });
    const [domain] = ofType(synth, 'AWS::ApiGateway::DomainName');
    expect(domain!.Properties).toMatchObject({
      DomainName: 'api.example.com',
      RegionalCertificateArn: CERT,
      SecurityPolicy: 'TLS_1_2',
    });
    const mappings = ofType(synth, 'AWS::ApiGateway::BasePathMapping');
    expect(mappings).toHaveLength(1);
    // No BasePath = the domain's root: /v1/marketplace/… with no stage in front.
    expect(mappings[0]!.Properties['BasePath']).toBeUndefined();
    const [subscription] = ofType(synth, 'AWS::SNS::Subscription');
    expect(subscription!.Properties).toMatchObject({ Protocol: 'email', Endpoint: 'ops@example.com' });
    // A notification SNS cannot hand over is kept in a queue (Serverless-SNSRedrivePolicy).
    expect(JSON.stringify(subscription!.Properties['RedrivePolicy'])).toContain('AlarmEmailDeadLetters');
  }, 120_000);

  it('reserves in each stage exactly its setting, and nothing in dev: a new account (quota 10) can deploy dev', () => {
    for (const stage of Object.keys(STAGES)) {
      const synth = synthApp({ stage });
      const reserved = ofType(synth, 'AWS::Lambda::Function').reduce(
        (sum, fn) => sum + ((fn.Properties['ReservedConcurrentExecutions'] as number | undefined) ?? 0),
        0,
      );
      expect(reserved, stage).toBe(concurrencyNeeds(STAGES[stage]!).reserved);
      // A default account's quota is 1,000, of which Lambda keeps 100 unreserved.
      expect(concurrencyNeeds(STAGES[stage]!).quotaNeeded, stage).toBeLessThanOrEqual(1000);
      for (const source of ofType(synth, 'AWS::Lambda::EventSourceMapping').filter(
        (m) => m.Properties['ScalingConfig'],
      ))
        expect(source.Properties['ScalingConfig']['MaximumConcurrency'], stage).toBe(
          STAGES[stage]!.queueConsumerConcurrency,
        );
    }
    expect(concurrencyNeeds(STAGES['dev']!)).toEqual({ reserved: 0, quotaNeeded: 0 });
    expect(concurrencyNeeds(STAGES['prod']!)).toEqual({ reserved: 310, quotaNeeded: 410 });
  }, 240_000);

  it("matches docs/deployment.md's concurrency table, stage by stage", () => {
    const doc = readFileSync(new URL('../docs/deployment.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('### Lambda concurrency'), doc.indexOf('### Feature flags'));
    const NAMES: Record<string, string> = { stream: 'SSE stream', relay: 'relay' };
    for (const [stage, config] of Object.entries(STAGES)) {
      const { quotaNeeded } = concurrencyNeeds(config);
      const reserves = Object.entries(config.reservedConcurrency)
        .map(([fn, n]) => `${NAMES[fn]} ${n}`)
        .join(', ');
      expect(section, stage).toContain(
        `| ${stage} | ${reserves || 'nothing'} | ${quotaNeeded || 'any'} | ${config.queueConsumerConcurrency} at once |`,
      );
    }
  });

  it('gives a command without -c stage the dev stage, never prod (cdk.json names no stage)', () => {
    expect(DEFAULT_STAGE).toBe('dev');
    expect(CDK_JSON.context['stage']).toBeUndefined();
    expect(stageNameOf(() => undefined)).toBe('dev');
    expect(stageNameOf((key) => (key === 'stage' ? 'prod' : undefined))).toBe('prod');
  });

  it('sets every feature flag aws-cdk-lib recommends in cdk.json, at its recommended value (so no synth prints the notice)', () => {
    const recommended = CURRENTLY_RECOMMENDED_FLAGS as Record<string, unknown>;
    expect(Object.keys(recommended).length).toBeGreaterThan(80);
    for (const [flag, value] of Object.entries(recommended)) expect(CDK_JSON.context[flag], flag).toEqual(value);
  });

  it('serves a regional REST API, as its custom domain is', () => {
    const synth = synthApp({ stage: 'dev' });
    const [api] = ofType(synth, 'AWS::ApiGateway::RestApi');
    expect(api!.Properties['EndpointConfiguration']).toEqual({ Types: ['REGIONAL'] });
  }, 120_000);

  it('refuses unknown stages, odd names and half a domain', () => {
    expect(() => stageConfig('qa')).toThrow(/Unknown stage/);
    expect(() => stageConfig('Prod')).toThrow(/must match/);
    expect(() => stageConfig('dev', (k) => (k === 'domainName' ? 'api.example.com' : undefined))).toThrow(/both/);
  });
});

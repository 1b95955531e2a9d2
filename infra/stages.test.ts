import { App, Tags } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { MarketplaceStack } from './stack.ts';
import { stackIdOf, stageConfig, STAGES } from './stage-config.ts';

const CERT = 'arn:aws:acm:eu-west-1:123456789012:certificate/00000000-0000-0000-0000-000000000000';

function synth(stage: string, context: Record<string, string> = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const config = stageConfig(stage, (key) => context[key]);
  const stack = new MarketplaceStack(app, stackIdOf(config.name), {
    config,
    env: { account: '123456789012', region: 'eu-west-1' },
    terminationProtection: config.terminationProtection,
  });
  Tags.of(stack).add('stage', config.name);
  return { stack, template: Template.fromStack(stack) };
}

describe('stages', () => {
  it('gives each stage its own stack, API stage name and settings', () => {
    const dev = synth('dev');
    expect(dev.stack.stackName).toBe('TemplateMarketplace-dev');
    expect(dev.stack.terminationProtection).toBe(false);
    dev.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'dev',
      MethodSettings: [{ ThrottlingRateLimit: STAGES['dev']!.throttle.rateLimit, ThrottlingBurstLimit: STAGES['dev']!.throttle.burstLimit }],
    });
    dev.template.hasResourceProperties('AWS::Lambda::Function', { Tags: [{ Key: 'stage', Value: 'dev' }] });
    expect(dev.template.findResources('AWS::ApiGateway::DomainName')).toEqual({});
    expect(dev.template.findResources('AWS::SNS::Subscription')).toEqual({});
  }, 120_000);

  it('protects the prod stack from termination', () => {
    expect(synth('prod').stack.terminationProtection).toBe(true);
  }, 120_000);

  it('serves the API at the root of a custom domain and subscribes the alarm e-mail when configured', () => {
    const { template } = synth('staging', { domainName: 'api.example.com', certificateArn: CERT, alarmEmail: 'ops@example.com' });
    template.hasResourceProperties('AWS::ApiGateway::DomainName', { DomainName: 'api.example.com', RegionalCertificateArn: CERT, SecurityPolicy: 'TLS_1_2' });
    const mappings = Object.values(template.findResources('AWS::ApiGateway::BasePathMapping'));
    expect(mappings).toHaveLength(1);
    // No BasePath = the domain's root: /v1/marketplace/… with no stage in front.
    expect(mappings[0]!.Properties['BasePath']).toBeUndefined();
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
  }, 120_000);

  it('refuses unknown stages, odd names and half a domain', () => {
    expect(() => stageConfig('qa')).toThrow(/Unknown stage/);
    expect(() => stageConfig('Prod')).toThrow(/must match/);
    expect(() => stageConfig('dev', (k) => (k === 'domainName' ? 'api.example.com' : undefined))).toThrow(/both/);
  });
});

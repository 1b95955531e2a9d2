/**
 * Every flag docs/deployment.md documents synthesizes with the cdk-nag checks on (AwsSolutions and
 * Serverless, as `npm run synth` runs them; infra/nag.ts): each stage bare (account and region
 * from the credentials, here none: environment-agnostic) and with every flag at once.
 */
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import type { MarketplaceStacks } from './stacks.ts';
import { STAGES } from './stage-config.ts';
import { synthApp } from './test-synth.ts';

const EVERY_FLAG = {
  alarmEmail: 'ops@example.com',
  domainName: 'api.example.com',
  certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/00000000-0000-0000-0000-000000000000',
  account: '123456789012',
  region: 'eu-west-1',
  corsOrigins: 'https://app.example.com,https://admin.example.com',
  developmentMode: 'false',
};

describe('documented flags with the nag checks on', () => {
  for (const stage of Object.keys(STAGES)) {
    it(`synthesizes ${stage} with no flag`, () => {
      const synth = synthApp({ stage, nag: true, env: false });
      expect(synth.stacks.all.every((s) => s.resolve(s.account) !== EVERY_FLAG.account)).toBe(true);
    }, 180_000);

    it(`synthesizes ${stage} with every flag: ${Object.keys(EVERY_FLAG).join(', ')}`, () => {
      // prod also runs CDK's own CloudFormation validation, as `npm run synth` does.
      const synth = synthApp({ stage, context: EVERY_FLAG, nag: true, env: false, validate: stage === 'prod' });
      // The flags took effect: pinned account and region, the domain, the subscription and its DLQ.
      expect(synth.stacks.all.map((s) => `${s.account}/${s.region}`)).toEqual(Array(4).fill('123456789012/eu-west-1'));
      const types = synth.resources.map((r) => r.Type);
      expect(types).toContain('AWS::ApiGateway::DomainName');
      expect(types).toContain('AWS::SNS::Subscription');
      expect(synth.resources.some((r) => r.id.startsWith('AlarmEmailDeadLetters'))).toBe(true);
    }, 180_000);
  }

  it('fails the synth on a finding nobody accepted (the checks are really on)', () => {
    // A queue without a DLQ, SSL enforcement or encryption choice: the same synth as above otherwise.
    const extend = (stacks: MarketplaceStacks) => void new Queue(stacks.workers, 'PlainQueue');
    expect(() => synthApp({ stage: 'dev', nag: true, extend })).toThrow(/AwsSolutions-SQS4/);
  }, 180_000);
});

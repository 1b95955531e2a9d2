import { beforeAll, describe, expect, it } from 'vitest';
import { routes, workers } from '../lib/routes.ts';
import { functionIdOf } from './lambda-function.ts';
import { PRICES } from './prices.ts';
import { type Resource, synthApp } from './test-synth.ts';
import { TRACING_FIXED_RATE, TRACING_SHARE_OF_API, tracingShareAt } from './tracing-sampling.ts';

let resources: Record<string, Resource>;

beforeAll(() => {
  // With the nag checks on (the synth fails on a finding): the workers' PassThrough tracing is
  // acknowledged on each of them (infra/lambda-function.ts), and nothing else. Logical ids of the
  // resources looked at here are unique across the app's stacks.
  resources = Object.fromEntries(synthApp({ stage: 'prod', nag: true }).resources.map((r) => [r.id, r]));
}, 120_000);

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const modeOf = (name: string) =>
  ofType('AWS::Lambda::Function').find(([id]) => id.startsWith(functionIdOf(name)))![1].Properties['TracingConfig'][
    'Mode'
  ];

describe('X-Ray tracing at a known cost', () => {
  it('samples the API stage by a rule without reservoir at the fixed rate, ahead of the default rule', () => {
    const rules = ofType('AWS::XRay::SamplingRule').map(([, r]) => r.Properties['SamplingRule']);
    expect(rules).toHaveLength(1);
    const [rule] = rules;
    expect(rule).toMatchObject({
      ReservoirSize: 0,
      FixedRate: TRACING_FIXED_RATE,
      ServiceType: 'AWS::ApiGateway::Stage',
      Priority: 100,
      RuleName: 'marketplace-api-prod',
    });
    // The rule names this stack's stage: its ARN is built from the API's id and the stage.
    const stages = ofType('AWS::ApiGateway::Stage');
    expect(stages).toHaveLength(1);
    const [stageId, stage] = stages[0]!;
    expect(JSON.stringify(rule.ResourceARN)).toContain(
      `"Ref":"${stage.Properties['RestApiId']['Ref']}"},"/stages/",{"Ref":"${stageId}"}`,
    );
    expect(stage.Properties['TracingEnabled']).toBe(true);
  });

  it('keeps X-Ray within 10 % of API Gateway at every volume tier, and the rate is not needlessly low', () => {
    expect(TRACING_FIXED_RATE).toBe(0.025);
    expect(tracingShareAt(PRICES.restApiRequestLowestTier)).toBeLessThanOrEqual(TRACING_SHARE_OF_API);
    expect(tracingShareAt(PRICES.restApiRequestFirstTier)).toBeLessThan(
      tracingShareAt(PRICES.restApiRequestLowestTier),
    );
    // A quarter percent more would break the bound: the rate is the largest that holds it.
    expect(
      ((TRACING_FIXED_RATE + 0.0025) * (PRICES.xrayTraceRecorded + PRICES.xrayTraceRetrieved)) /
        PRICES.restApiRequestLowestTier,
    ).toBeGreaterThan(TRACING_SHARE_OF_API);
  });

  it("traces what API Gateway invokes on its decision (Active) and passes a caller's decision through everywhere else", () => {
    for (const route of routes) expect(modeOf(route.name), route.name).toBe('Active');
    expect(modeOf('authorizer')).toBe('Active');
    const others = Object.keys(workers).filter((w) => w !== 'authorizer');
    expect(others.length).toBeGreaterThan(0);
    for (const name of others) expect(modeOf(name), name).toBe('PassThrough');
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_LIMITS, KEYLESS_ROUTE_LIMITS } from '../lib/core/settings.ts';
import { routes } from '../lib/routes.ts';
import { QUOTA_RETRY_AFTER_SECONDS, THROTTLED_RETRY_AFTER_SECONDS } from './gateway-responses.ts';
import { type Synthesized, synthApp } from './test-synth.ts';

let synth: Synthesized;

beforeAll(() => {
  synth = synthApp({ stage: 'dev' });
}, 120_000);

/** Resources of a type in every stack, as properties with their logical id. */
const ofType = (type: string): Array<Record<string, any> & { id: string }> =>
  synth.resources.filter((r) => r.Type === type).map((r) => ({ ...r.Properties, id: r.id }));

describe('per-key limits in the synthesized stack', () => {
  it('takes API keys from the authorizer only, and requires one on every method behind it', () => {
    const [api] = ofType('AWS::ApiGateway::RestApi');
    expect(api!['ApiKeySourceType']).toBe('AUTHORIZER');
    const methods = ofType('AWS::ApiGateway::Method');
    const withAuthorizer = methods.filter((m) => m['AuthorizationType'] === 'CUSTOM');
    expect(withAuthorizer).toHaveLength(routes.filter((r) => r.auth).length);
    for (const m of withAuthorizer) expect(m['ApiKeyRequired'], `${m['HttpMethod']} ${m.id}`).toBe(true);
    // /health and CORS preflights answer without a key, as before.
    for (const m of methods.filter((m) => m['AuthorizationType'] !== 'CUSTOM'))
      expect(m['ApiKeyRequired'] ?? false).toBe(false);
  });

  it('gives every key the same usage plan on the stage: rate, burst and daily quota of lib/core/settings.ts', () => {
    const plans = ofType('AWS::ApiGateway::UsagePlan');
    expect(plans).toHaveLength(1);
    const plan = plans[0]!;
    expect(plan['Throttle']).toEqual({ RateLimit: API_KEY_LIMITS.ratePerSecond, BurstLimit: API_KEY_LIMITS.burst });
    expect(plan['Quota']).toEqual({ Limit: API_KEY_LIMITS.dailyQuota, Period: 'DAY' });
    const [stage] = ofType('AWS::ApiGateway::Stage');
    expect(plan['ApiStages']).toEqual([
      expect.objectContaining({ ApiId: { Ref: expect.stringMatching(/^Api/) }, Stage: { Ref: stage!.id } }),
    ]);
    // The admin command needs the plan's id to attach new keys.
    expect(synth.outputs.map((o) => o.Value)).toContainEqual({ Ref: plan.id });
  });

  it('keeps the stage-wide throttle above the per-key one', () => {
    const [stage] = ofType('AWS::ApiGateway::Stage');
    const settings = (stage!['MethodSettings'] as Array<Record<string, unknown>>).find((s) => s['HttpMethod'] === '*');
    expect(settings!['ThrottlingRateLimit']).toBeGreaterThan(API_KEY_LIMITS.ratePerSecond);
    expect(settings!['ThrottlingBurstLimit']).toBeGreaterThan(API_KEY_LIMITS.burst);
  });

  it('throttles each route without a key on its own (no usage plan counts its callers), below the stage', () => {
    const [stage] = ofType('AWS::ApiGateway::Stage');
    const settings = stage!['MethodSettings'] as Array<Record<string, unknown>>;
    const keyless = routes.filter((r) => !r.auth);
    expect(keyless.map((r) => r.name)).toContain('getWebhookJwks');
    for (const route of keyless) {
      const encoded = route.path.replaceAll('/', '~1');
      const setting = settings.find((s) => s['ResourcePath'] === `/${encoded}` && s['HttpMethod'] === route.method);
      expect(setting, route.name).toMatchObject({
        ThrottlingRateLimit: KEYLESS_ROUTE_LIMITS.ratePerSecond,
        ThrottlingBurstLimit: KEYLESS_ROUTE_LIMITS.burst,
        LoggingLevel: 'ERROR',
      });
    }
    // Only those: a keyed route's callers are counted per key by the usage plan.
    expect(settings.filter((s) => s['HttpMethod'] !== '*')).toHaveLength(keyless.length);
    const stageWide = settings.find((s) => s['HttpMethod'] === '*')!;
    expect(stageWide['ThrottlingRateLimit']).toBeGreaterThan(KEYLESS_ROUTE_LIMITS.ratePerSecond);
    expect(stageWide['ThrottlingBurstLimit']).toBeGreaterThan(KEYLESS_ROUTE_LIMITS.burst);
  });

  it("answers the gateway's own 429s (throttled, quota) in the error format with Retry-After", () => {
    const responses = ofType('AWS::ApiGateway::GatewayResponse');
    for (const [type, retryAfter] of [
      ['THROTTLED', THROTTLED_RETRY_AFTER_SECONDS],
      ['QUOTA_EXCEEDED', QUOTA_RETRY_AFTER_SECONDS],
    ] as const) {
      const response = responses.find((r) => r['ResponseType'] === type);
      expect(response, type).toBeDefined();
      expect(response!['StatusCode']).toBe('429');
      expect(response!['ResponseParameters']['gatewayresponse.header.Retry-After']).toBe(`'${retryAfter}'`);
      const body = JSON.parse(response!['ResponseTemplates']['application/json']);
      expect(body).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
    }
    const invalidKey = responses.find((r) => r['ResponseType'] === 'INVALID_API_KEY');
    expect(invalidKey!['StatusCode']).toBe('401');
    expect(JSON.parse(invalidKey!['ResponseTemplates']['application/json']).error.code).toBe('unauthorized');
  });
});

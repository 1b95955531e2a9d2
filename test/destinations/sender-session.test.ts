import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { policyAllows } from '../../fixtures/iam-policy.ts';
import { type LocalSts, startLocalSts } from '../../fixtures/sts-endpoint.ts';
import { type Synthesized, synthApp, TEST_ENV } from '../../infra/test-synth.ts';
import { DESTINATIONS } from '../../lib/core/settings.ts';
import { keyPolicyStatement, resourcePolicy } from '../../lib/destinations/policy.ts';
import { sessionFor } from '../../lib/destinations/session.ts';

/**
 * The destination sender's AWS path, run here as it runs in AWS, with IAM judged on both sides of
 * the cross-account call from the policies the synthesized stack and the API actually write:
 *
 * 1. the worker's AssumeRole (lib/destinations/session.ts, with STS_ENDPOINT) against a local STS
 *    (fixtures/sts-endpoint.ts) holding the sender role's trust policy and maximum session duration
 *    from the synthesized dev app: the service's request passes what STS checks, and another caller,
 *    or a request without the account tag, does not;
 * 2. the session's sends, judged against the sender role's own policy from the same template and
 *    the customer's queue, bus and key policies from lib/destinations/policy.ts.
 */
const SERVICE_ACCOUNT = TEST_ENV.account;
const CUSTOMER_ACCOUNT = '210987654321';
const TENANT = '7b5bd5a6-4a0d-4cbe-9a3e-6a0c2ce1e9f4';
const OTHER_TENANT = 'c3f1e1a0-1d3b-4a43-8c9e-2f1f6c0a7b55';
const SENDER_ROLE = `arn:aws:iam::${SERVICE_ACCOUNT}:role/template-marketplace-dev-destination-sender`;
const WORKER_KEY = 'AKIAWORKERROLE';
const STRANGER_KEY = 'AKIASTRANGER';

let synth: Synthesized;
let senderRole: { trust: Record<string, unknown>; maxSessionSeconds: number; policy: Record<string, unknown> };
let workerRoleArn: string;
let sts: LocalSts;
const saved = { ...process.env };

/** What the template's intrinsics stand for in the service's account. */
function resolved(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolved);
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if ('Fn::GetAtt' in o) return `arn:aws:iam::${SERVICE_ACCOUNT}:role/${(o['Fn::GetAtt'] as string[])[0]}`;
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, resolved(v)]));
  }
  return value;
}

beforeAll(async () => {
  // The test synth's account (infra/test-synth.ts) is SERVICE_ACCOUNT.
  synth = synthApp({ stage: 'dev' });
  const role = synth.resources.find(
    (r) => r.Type === 'AWS::IAM::Role' && r.Properties['RoleName'] === 'template-marketplace-dev-destination-sender',
  )!;
  const policies = synth.resources.filter(
    (p) => p.Type === 'AWS::IAM::Policy' && JSON.stringify(p.Properties['Roles']).includes(role.id),
  );
  expect(policies).toHaveLength(1);
  const trust = resolved(role.Properties['AssumeRolePolicyDocument']) as Record<string, unknown>;
  senderRole = {
    trust,
    maxSessionSeconds: role.Properties['MaxSessionDuration'] as number,
    policy: resolved(policies[0]!.Properties['PolicyDocument']) as Record<string, unknown>,
  };
  workerRoleArn = (trust['Statement'] as Array<{ Principal: { AWS: string } }>)[0]!.Principal.AWS;
  sts = await startLocalSts(
    { [SENDER_ROLE]: { trustPolicy: trust, maxSessionSeconds: senderRole.maxSessionSeconds } },
    { [WORKER_KEY]: workerRoleArn, [STRANGER_KEY]: `arn:aws:iam::${SERVICE_ACCOUNT}:role/some-other-function` },
  );
}, 120_000);

afterAll(async () => {
  process.env = saved;
  await sts.close();
});

/** Lambda's environment for the destination worker, with the given role credentials. */
function asWorker(accessKeyId: string): void {
  delete process.env['DYNAMODB_ENDPOINT'];
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: 'secret',
    AWS_SESSION_TOKEN: 'worker-session',
    AWS_REGION: 'eu-west-1',
    STS_ENDPOINT: sts.endpoint,
    DESTINATION_SENDER_ROLE_ARN: SENDER_ROLE,
  });
}

describe("the sender role's session, as STS issues it", () => {
  it("the worker's AssumeRole passes the synthesized trust policy: tagged with the account, within the role's maximum duration", async () => {
    asWorker(WORKER_KEY);
    const session = await sessionFor(TENANT);
    expect(session.sessionToken).toContain(`${DESTINATIONS.tenantTagKey}=${TENANT}`);
    expect(sts.issued.at(-1)).toEqual({
      roleArn: SENDER_ROLE,
      sessionName: `dest-${TENANT}`,
      durationSeconds: DESTINATIONS.sessionSeconds,
      tags: { [DESTINATIONS.tenantTagKey]: TENANT },
    });
    expect(DESTINATIONS.sessionSeconds).toBeLessThanOrEqual(senderRole.maxSessionSeconds);
  });

  it('another function of the service may not assume it, and the refusal reaches the caller as AccessDenied', async () => {
    asWorker(STRANGER_KEY);
    await expect(sessionFor(OTHER_TENANT)).rejects.toThrow(/STS AssumeRole answered 403: AccessDenied/);
    expect(sts.refused.at(-1)).toMatch(/not authorized to perform: sts:AssumeRole/);
  });

  it('the trust policy refuses a session without the account tag, or with another tag beside it', () => {
    const judge = (tags: Record<string, string>) =>
      ['sts:AssumeRole', 'sts:TagSession'].every((action) =>
        policyAllows(senderRole.trust, {
          principal: workerRoleArn,
          action,
          context: {
            'aws:TagKeys': Object.keys(tags),
            ...Object.fromEntries(Object.entries(tags).map(([k, v]) => [`aws:RequestTag/${k}`, v])),
          },
        }),
      );
    expect(judge({ [DESTINATIONS.tenantTagKey]: TENANT })).toBe(true);
    expect(judge({})).toBe(false);
    expect(judge({ [DESTINATIONS.tenantTagKey]: TENANT, admin: 'true' })).toBe(false);
  });
});

describe('both sides of a send: the sender role may, and the customer allows only its own tenant', () => {
  const queue = `arn:aws:sqs:eu-west-1:${CUSTOMER_ACCOUNT}:orders`;
  const bus = `arn:aws:events:eu-west-1:${CUSTOMER_ACCOUNT}:event-bus/orders`;
  const key = `arn:aws:kms:eu-west-1:${CUSTOMER_ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
  const asSession = (tenant: string, action: string, resource: string, extra: Record<string, string> = {}) => ({
    principal: SENDER_ROLE,
    action,
    resource,
    context: {
      [`aws:PrincipalTag/${DESTINATIONS.tenantTagKey}`]: tenant,
      'aws:ResourceAccount': resource.split(':')[4]!,
      ...extra,
    },
  });
  const roleMay = (request: ReturnType<typeof asSession>) => policyAllows(senderRole.policy, request);
  // The customer's policies name the stage's sender role.
  beforeEach(() => asWorker(WORKER_KEY));

  it("sends to a customer's queue and bus when the customer's policy names its tenant, never another's", () => {
    for (const [kind, arn, action] of [
      ['sqs', queue, 'sqs:SendMessage'],
      ['eventbridge', bus, 'events:PutEvents'],
    ] as const) {
      const customer = resourcePolicy(kind, arn, TENANT);
      expect(roleMay(asSession(TENANT, action, arn))).toBe(true);
      expect(policyAllows(customer, asSession(TENANT, action, arn))).toBe(true);
      expect(policyAllows(customer, asSession(OTHER_TENANT, action, arn))).toBe(false);
    }
  });

  it("uses a customer's own KMS key only through SQS or EventBridge, on both sides", () => {
    const viaSqs = { 'kms:ViaService': 'sqs.eu-west-1.amazonaws.com' };
    const keyPolicy = { Statement: [keyPolicyStatement('sqs', queue, TENANT)] };
    for (const action of ['kms:GenerateDataKey', 'kms:Decrypt']) {
      expect(roleMay(asSession(TENANT, action, key, viaSqs))).toBe(true);
      expect(policyAllows(keyPolicy, asSession(TENANT, action, key, viaSqs))).toBe(true);
      // Directly, not through SQS: refused by both sides.
      expect(roleMay(asSession(TENANT, action, key))).toBe(false);
      expect(policyAllows(keyPolicy, asSession(TENANT, action, key))).toBe(false);
      // Another tenant's session: the customer's key policy refuses it.
      expect(policyAllows(keyPolicy, asSession(OTHER_TENANT, action, key, viaSqs))).toBe(false);
    }
    expect(roleMay(asSession(TENANT, 'kms:Encrypt', key, viaSqs))).toBe(false);
  });

  it("never in the service's own account, whatever the resource's policy says", () => {
    const own = `arn:aws:sqs:eu-west-1:${SERVICE_ACCOUNT}:deliveries`;
    expect(roleMay(asSession(TENANT, 'sqs:SendMessage', own))).toBe(false);
    const ownKey = `arn:aws:kms:eu-west-1:${SERVICE_ACCOUNT}:key/abcd`;
    expect(roleMay(asSession(TENANT, 'kms:Decrypt', ownKey, { 'kms:ViaService': 'sqs.eu-west-1.amazonaws.com' }))).toBe(
      false,
    );
  });
});

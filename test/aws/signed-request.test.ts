import { afterEach, describe, expect, it } from 'vitest';
import { sampleServerClock } from '../../lib/aws/clock-skew.ts';
import { RetryBudget, retryAfterMsOf, retryDelayMs, retryKindOf } from '../../lib/aws/retry-policy.ts';
import { AwsCallFailed, type SignedRequest, signedRequest, signerFor } from '../../lib/aws/signed-request.ts';
import { withCallDeadline } from '../../lib/store/call-deadline.ts';
import { AccessDeniedException } from '../../local/lambda/grant-guard.ts';
import { GrantViolation, runGranted } from '../../local/lambda/grants.ts';
import { type Reply, type ScriptedEndpoint, scriptedEndpoint, signingScopeOf } from './support/scripted-endpoint.ts';

/**
 * The hand-signed calls' transport (lib/aws/signed-request.ts) against a real server on 127.0.0.1
 * scripted to throttle, fail, reset, stay silent or disagree about the time: what is retried and
 * what is not follows the SDK's standard mode, a skewed clock is corrected, a deadline is kept, and
 * the grant guard sees every call.
 */
const credentials = async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' });
let endpoint: ScriptedEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

async function answering(...replies: Reply[]): Promise<ScriptedEndpoint> {
  endpoint = await scriptedEndpoint((_, index) => replies[index] ?? { status: 200, body: '{}' });
  return endpoint;
}

const kmsCall = (url: string, extra: Partial<SignedRequest> = {}): Promise<Awaited<ReturnType<typeof signedRequest>>> =>
  signedRequest({
    service: 'kms',
    operation: 'Decrypt',
    region: 'eu-west-1',
    method: 'POST',
    url: new URL(url),
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'TrentService.Decrypt' },
    body: '{"CiphertextBlob":"AAAA"}',
    credentials,
    ...extra,
  });

const json = (status: number, type: string, headers: Record<string, string> = {}) => ({
  status,
  headers: { 'content-type': 'application/x-amz-json-1.1', ...headers },
  body: JSON.stringify({ __type: type, message: `${type} (scripted)` }),
});

describe('retries, as the SDK standard mode', () => {
  it('tries throttling (429, or a 400 naming a throttling code), 5xx and a reset connection again, and succeeds', async () => {
    const kms = await answering(json(429, 'TooManyRequestsException'), json(400, 'ThrottlingException'));
    expect(await kmsCall(kms.url)).toMatchObject({ status: 200, attempts: 3 });
    await kms.close();
    const flaky = await answering(json(503, 'ServiceUnavailable'), 'reset');
    expect(await kmsCall(flaky.url)).toMatchObject({ status: 200, attempts: 3 });
    expect(flaky.seen).toHaveLength(3);
  });

  it('gives the last error answer after three attempts, and never retries a client error', async () => {
    const down = await answering(
      json(500, 'KMSInternalException'),
      json(500, 'KMSInternalException'),
      json(500, 'KMSInternalException'),
    );
    expect(await kmsCall(down.url)).toMatchObject({ status: 500, attempts: 3 });
    await down.close();
    const refused = await answering(json(400, 'InvalidCiphertextException'));
    expect(await kmsCall(refused.url)).toMatchObject({ status: 400, attempts: 1 });
    expect(refused.seen).toHaveLength(1);
  });

  it('throws AwsCallFailed when no attempt is answered (each waits its own timeout)', async () => {
    const silent = await answering('silent', 'silent', 'silent');
    await expect(kmsCall(silent.url, { timeoutMs: 200 })).rejects.toThrow(AwsCallFailed);
    expect(silent.seen).toHaveLength(3);
  });

  it("keeps the route's deadline: no attempt starts past it, however many the policy would allow", async () => {
    const silent = await answering('silent', 'silent', 'silent');
    const call = withCallDeadline(Date.now() + 300, () => kmsCall(silent.url, { timeoutMs: 5_000 }));
    await expect(call).rejects.toThrow(AwsCallFailed);
    // The first attempt's wait was cut to the deadline, and no second attempt started after it.
    expect(silent.seen).toHaveLength(1);
  });

  it('classifies as the SDK does', () => {
    const failed = (name: string, httpStatusCode?: number, code?: string) => ({
      name,
      message: '',
      code,
      $metadata: { httpStatusCode },
    });
    expect(retryKindOf(failed('ThrottlingException', 400))).toBe('THROTTLING');
    expect(retryKindOf(failed('HTTP 429', 429))).toBe('THROTTLING');
    expect(retryKindOf(failed('RequestThrottled', 400))).toBe('THROTTLING');
    expect(retryKindOf(failed('HTTP 502', 502))).toBe('TRANSIENT');
    expect(retryKindOf(failed('Error', undefined, 'ECONNRESET'))).toBe('TRANSIENT');
    expect(retryKindOf(failed('TimeoutError'))).toBe('TRANSIENT');
    expect(retryKindOf(failed('AccessDeniedException', 400))).toBeUndefined();
    expect(retryKindOf(failed('ValidationException', 400))).toBeUndefined();
    expect(retryKindOf(failed('HTTP 501', 501))).toBeUndefined();
  });

  it("waits a full-jitter backoff from the SDK's bases, longer for throttling, stretched toward Retry-After", () => {
    const most = () => 0.999_999;
    expect(retryDelayMs('TRANSIENT', 0, undefined, most)).toBe(49);
    expect(retryDelayMs('TRANSIENT', 2, undefined, most)).toBe(199);
    expect(retryDelayMs('THROTTLING', 1, undefined, most)).toBe(1_999);
    expect(retryDelayMs('TRANSIENT', 0, undefined, () => 0)).toBe(0);
    // A hint longer than the backoff stretches it, by at most 5 s more than the backoff.
    expect(retryDelayMs('TRANSIENT', 0, 2_000, () => 0)).toBe(2_000);
    expect(retryDelayMs('TRANSIENT', 0, 60_000, () => 0)).toBe(5_000);
    expect(retryAfterMsOf('3')).toBe(3_000);
    expect(retryAfterMsOf(new Date(Date.now() + 10_000).toUTCString())).toBeGreaterThan(8_000);
    expect(retryAfterMsOf('soon')).toBeUndefined();
  });

  it('stops retrying when the budget is spent, and earns it back with successes', () => {
    const budget = new RetryBudget();
    let retries = 0;
    while (budget.take('TRANSIENT') !== undefined) retries++;
    // 500 tokens at 14 a transient retry (the SDK's costs): an outage stops being retried after 35.
    expect(retries).toBe(35);
    expect(budget.take('THROTTLING')).toBe(5);
    budget.succeeded(undefined);
    budget.succeeded(14);
    expect(budget.tokens).toBe(500 - 35 * 14 - 5 + 1 + 14);
  });
});

describe('clock skew, corrected as the SDK signer corrects it', () => {
  it('re-signs by the server clock after "Signature expired", and dates the next calls by it', async () => {
    const serverAhead = 60 * 60_000;
    const signedAt = (headers: Record<string, string | string[] | undefined>) =>
      Date.parse(
        String(headers['x-amz-date']).replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
      );
    endpoint = await scriptedEndpoint((request) => {
      const serverNow = Date.now() + serverAhead;
      const date = new Date(serverNow).toUTCString();
      return Math.abs(signedAt(request.headers) - serverNow) > 5 * 60_000
        ? {
            ...json(400, 'InvalidSignatureException', { date }),
            body: JSON.stringify({
              __type: 'InvalidSignatureException',
              message: 'Signature expired: 20261203T204500Z is now earlier than …',
            }),
          }
        : { status: 200, headers: { date }, body: '{}' };
    });
    try {
      expect(await kmsCall(endpoint.url)).toMatchObject({ status: 200, attempts: 2 });
      expect(await kmsCall(endpoint.url)).toMatchObject({ status: 200, attempts: 1 });
    } finally {
      // Leave the process's offset as an in-sync server would: the clock module is one per process.
      sampleServerClock(new Date().toUTCString(), undefined, Date.now());
    }
  });
});

describe('the grant guard sees every hand-signed call', () => {
  it('refuses a KMS call outside the grant before sending it, and lets the granted one through', async () => {
    const kms = await answering();
    let refused: unknown;
    const run = runGranted('signsWithoutDecrypt', { table: 'read' }, async () => {
      refused = await kmsCall(kms.url).catch((err: unknown) => err);
    });
    await expect(run).rejects.toThrow(GrantViolation);
    expect(refused).toBeInstanceOf(AccessDeniedException);
    expect(kms.seen).toHaveLength(0);
    await runGranted('signs', { table: 'read', signingKey: 'open' }, () => kmsCall(kms.url));
    expect(kms.seen).toHaveLength(1);
  });

  it('keeps a signer per credentials, service and region: one provider signs for each scope it is used in', async () => {
    expect(signerFor('kms', 'eu-west-1', credentials)).toBe(signerFor('kms', 'eu-west-1', credentials));
    expect(signerFor('sqs', 'eu-west-1', credentials)).not.toBe(signerFor('kms', 'eu-west-1', credentials));
    const both = await answering();
    await kmsCall(both.url);
    await kmsCall(both.url, { service: 'sqs', operation: 'ChangeMessageVisibility', region: 'us-east-2' });
    expect(both.seen.map((r) => signingScopeOf(r)?.split('/').slice(1, 3).join('/'))).toEqual([
      'eu-west-1/kms',
      'us-east-2/sqs',
    ]);
  });
});

import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../client/index.ts';
import { newWebhookSecret } from '../../lib/webhooks/secret.ts';
import { signatureHeaders } from '../../lib/webhooks/signature.ts';

const event = {
  id: 'evt_01J00000000000000000000000',
  type: 'contract.funded',
  created_at: '2026-11-22T10:00:00.000Z',
  agent_id: 'agt_01J00000000000000000000000',
  data: { contract_id: 'ctr_1', status: 'FUNDED', amount_cents: 5 },
};
const rawBody = JSON.stringify(event);
const secret = newWebhookSecret();
/** Signed by the service's own signer, as a delivery is. */
const signed = (key = secret, body = rawBody, at = new Date()) =>
  ({ ...signatureHeaders(key, body, event.id, at) }) as Record<string, string>;

async function refusal(input: Parameters<typeof verifyWebhook>[0]): Promise<WebhookVerificationError> {
  const err = await verifyWebhook(input).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WebhookVerificationError);
  return err as WebhookVerificationError;
}

describe('verifyWebhook (client package)', () => {
  it('returns the parsed event for a delivery signed with the secret, from a plain object, Headers, a string or bytes', async () => {
    const headers = signed();
    expect(await verifyWebhook({ secret, headers, rawBody })).toEqual(event);
    expect(
      await verifyWebhook({ secret, headers: new Headers(headers), rawBody: new TextEncoder().encode(rawBody) }),
    ).toEqual(event);
    // Node's req.headers: lower-case names; another casing works too.
    expect(
      await verifyWebhook({
        secret,
        headers: {
          'X-Service-Timestamp': headers['x-service-timestamp'],
          'X-Service-Signature': headers['x-service-signature'],
        },
        rawBody,
      }),
    ).toEqual(event);
  });

  it('accepts any of several secrets (a rotation) and refuses when none matches', async () => {
    const old = newWebhookSecret();
    const headers = signed(old);
    expect(await verifyWebhook({ secret: [secret, old], headers, rawBody })).toEqual(event);
    expect((await refusal({ secret, headers, rawBody })).code).toBe('invalid_signature');
  });

  it('refuses a changed body, a missing header, a stale or future timestamp, and a forged standard signature', async () => {
    const headers = signed();
    expect((await refusal({ secret, headers, rawBody: rawBody.replace('5', '6') })).code).toBe('invalid_signature');
    expect(
      (
        await refusal({
          secret,
          headers: { ...headers, 'x-service-signature': undefined as unknown as string },
          rawBody,
        })
      ).code,
    ).toBe('missing_header');
    expect((await refusal({ secret, headers: { ...headers, 'x-service-timestamp': 'yesterday' }, rawBody })).code).toBe(
      'invalid_timestamp',
    );
    const stale = signed(secret, rawBody, new Date(Date.now() - 301_000));
    expect((await refusal({ secret, headers: stale, rawBody })).code).toBe('timestamp_out_of_tolerance');
    expect(await verifyWebhook({ secret, headers: stale, rawBody, toleranceSeconds: 400 })).toEqual(event);
    const future = signed(secret, rawBody, new Date(Date.now() + 301_000));
    expect((await refusal({ secret, headers: future, rawBody })).code).toBe('timestamp_out_of_tolerance');
    // The service's signature is right but the standard one is not: refused, since it was sent.
    const forged = { ...headers, 'webhook-signature': `v1,${btoa('x'.repeat(32))}` };
    expect((await refusal({ secret, headers: forged, rawBody })).code).toBe('invalid_signature');
    expect((await refusal({ secret, headers: { ...headers, 'webhook-timestamp': '1' }, rawBody })).code).toBe(
      'invalid_signature',
    );
  });

  it('checks a standard signature made by the standardwebhooks library', async () => {
    const at = new Date();
    const own = signed(secret, rawBody, at);
    const standard = new Webhook(secret).sign(event.id, at, rawBody);
    expect(
      await verifyWebhook({ secret, headers: { ...own, 'webhook-signature': `v1,bogus ${standard}` }, rawBody }),
    ).toEqual(event);
  });

  it('still verifies secrets issued before the Standard Webhooks format (base64url)', async () => {
    const legacy = `whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`;
    expect(await verifyWebhook({ secret: legacy, headers: signed(legacy), rawBody })).toEqual(event);
  });

  it('refuses a body that is not a JSON object', async () => {
    const body = '[1,2]';
    expect((await refusal({ secret, headers: signed(secret, body), rawBody: body })).code).toBe('invalid_body');
  });
});

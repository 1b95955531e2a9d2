import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { buildChallengeRequest, judgeChallengeReply, newChallengeToken } from '../../lib/webhooks/handshake.ts';
import { LEGACY_SECRET_PATTERN, newWebhookSecret, SECRET_PATTERN } from '../../lib/webhooks/secret.ts';
import { computeSignature, signatureHeaders, verifySignature } from '../../lib/webhooks/signature.ts';

const secret = 'whsec_test_secret';

describe('signature', () => {
  it('is the lowercase hex HMAC-SHA-256 of "<timestamp>.<body>" keyed with the secret', () => {
    const body = '{"type":"contract.funded","data":{"contract_id":"ctr_1"}}';
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(computeSignature(secret, '1700000000', body)).toBe(expected);
    expect(signatureHeaders(secret, body, 'evt_1', new Date(1_700_000_000_999))).toMatchObject({
      'x-service-timestamp': '1700000000',
      'x-service-signature': expected,
    });
  });

  it('adds the Standard Webhooks headers: base64 HMAC-SHA-256 of "<id>.<timestamp>.<body>" keyed with the decoded secret', () => {
    const standardSecret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const body = '{"id":"evt_1"}';
    const h = signatureHeaders(standardSecret, body, 'evt_1', new Date(1_700_000_000_999));
    const expected = createHmac('sha256', Buffer.alloc(32, 1)).update(`evt_1.1700000000.${body}`).digest('base64');
    expect(h['webhook-id']).toBe('evt_1');
    expect(h['webhook-timestamp']).toBe('1700000000');
    expect(h['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('signs legacy base64url secrets for both schemes: the standard key is their 32 bytes', () => {
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => 250 - i));
    const legacy = `whsec_${bytes.toString('base64url')}`;
    expect(legacy).toMatch(LEGACY_SECRET_PATTERN);
    const now = new Date();
    const body = '{"id":"evt_2"}';
    const h = signatureHeaders(legacy, body, 'evt_2', now);
    expect(
      verifySignature(legacy, { timestamp: h['x-service-timestamp'], signature: h['x-service-signature'] }, body, {
        now,
      }),
    ).toBe(true);
    // The same key in the standard spelling verifies with the reference library.
    expect(new Webhook(`whsec_${bytes.toString('base64')}`).verify(body, { ...h })).toEqual({ id: 'evt_2' });
  });

  it('verifies only the exact body, secret and a fresh timestamp', () => {
    const now = new Date();
    const body = '{"a":"é"}';
    const h = signatureHeaders(secret, body, 'evt_1', now);
    const headers = { timestamp: h['x-service-timestamp'], signature: h['x-service-signature'] };
    expect(verifySignature(secret, headers, body, { now })).toBe(true);
    expect(verifySignature(secret, headers, '{"a": "é"}', { now })).toBe(false);
    expect(verifySignature('whsec_other', headers, body, { now })).toBe(false);
    expect(
      verifySignature(secret, { ...headers, timestamp: String(Number(headers.timestamp) + 1) }, body, { now }),
    ).toBe(false);
    expect(verifySignature(secret, headers, body, { now: new Date(now.getTime() + 301_000) })).toBe(false);
    expect(verifySignature(secret, { ...headers, signature: headers.signature.toUpperCase() }, body, { now })).toBe(
      false,
    );
    expect(verifySignature(secret, { timestamp: undefined, signature: headers.signature }, body, { now })).toBe(false);
  });
});

describe('secrets and tokens', () => {
  it('makes whsec_ secrets of 32 random bytes in standard base64, never the same twice, each accepted by standardwebhooks', () => {
    const secrets = new Set(Array.from({ length: 200 }, newWebhookSecret));
    expect(secrets.size).toBe(200);
    for (const s of secrets) {
      expect(s).toMatch(SECRET_PATTERN);
      expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(32);
      const signed = signatureHeaders(s, '{"id":"evt_3"}', 'evt_3');
      expect(new Webhook(s).verify('{"id":"evt_3"}', { ...signed })).toEqual({ id: 'evt_3' });
    }
  });

  it('makes challenge tokens of 32 random bytes with URL-unsafe characters', () => {
    const tokens = new Set(Array.from({ length: 200 }, newChallengeToken));
    expect(tokens.size).toBe(200);
    for (const t of tokens) {
      expect(t).toMatch(/=$/);
      expect(encodeURIComponent(t)).not.toBe(t);
    }
  });
});

describe('judging the handshake reply', () => {
  const token = 'ab+/cd==';
  const reply = (status: number, contentType: string, body: string, extra: { truncated?: boolean } = {}) =>
    judgeChallengeReply({ kind: 'response', status, headers: { 'content-type': contentType }, body, ...extra }, token);

  it('accepts 200, application/json (any parameters, any case), the exact token, extra fields allowed', () => {
    expect(reply(200, 'application/json', JSON.stringify({ challenge: token }))).toEqual({ ok: true });
    expect(reply(200, 'Application/JSON; charset=utf-8', JSON.stringify({ challenge: token, ok: 1 }))).toEqual({
      ok: true,
    });
  });

  it.each([
    [
      'a trimmed token',
      200,
      'application/json',
      JSON.stringify({ challenge: token.slice(0, -1) }),
      'challenge_mismatch',
    ],
    ['a padded token', 200, 'application/json', JSON.stringify({ challenge: ` ${token}` }), 'challenge_mismatch'],
    ['the token as a bare string', 200, 'application/json', JSON.stringify(token), 'challenge_mismatch'],
    ['a JSON array', 200, 'application/json', JSON.stringify([token]), 'challenge_mismatch'],
    ['a redirect', 302, 'application/json', JSON.stringify({ challenge: token }), 'endpoint_error'],
    ['no content type', 200, '', JSON.stringify({ challenge: token }), 'endpoint_error'],
    [
      'a JSON-like content type',
      200,
      'application/problem+json',
      JSON.stringify({ challenge: token }),
      'endpoint_error',
    ],
  ])('refuses %s', (_what, status, type, body, code) => {
    expect(reply(status, type, body)).toMatchObject({ ok: false, code });
  });

  it('refuses a body cut at the read cap', () => {
    expect(reply(200, 'application/json', JSON.stringify({ challenge: token }), { truncated: true })).toMatchObject({
      code: 'endpoint_error',
    });
  });

  it('maps transport outcomes to the docs/api.md codes', () => {
    expect(judgeChallengeReply({ kind: 'timeout' }, token)).toMatchObject({ code: 'verification_timeout' });
    expect(judgeChallengeReply({ kind: 'blocked', reason: 'x' }, token)).toMatchObject({
      code: 'url_validation_error',
    });
    expect(judgeChallengeReply({ kind: 'network_error', message: 'ECONNREFUSED' }, token)).toMatchObject({
      code: 'endpoint_error',
    });
  });

  it('builds a request whose signature covers its exact body', () => {
    const now = new Date();
    const req = buildChallengeRequest({ agentId: 'agt_X', url: 'https://hooks.example.com/', secret, token, now });
    expect(JSON.parse(req.body)).toEqual({
      type: 'service.webhook.verify',
      challenge: token,
      agent_id: 'agt_X',
      timestamp: now.toISOString(),
    });
    const headers = { timestamp: req.headers['x-service-timestamp'], signature: req.headers['x-service-signature'] };
    expect(verifySignature(secret, headers, req.body, { now })).toBe(true);
    expect(req.headers['webhook-id']).toMatch(/^verify_[0-9a-f-]{36}$/);
    expect(req.headers['webhook-timestamp']).toBe(req.headers['x-service-timestamp']);
    const standardSecret = newWebhookSecret();
    const standard = buildChallengeRequest({
      agentId: 'agt_X',
      url: 'https://hooks.example.com/',
      secret: standardSecret,
      token,
    });
    expect(new Webhook(standardSecret).verify(standard.body, standard.headers)).toMatchObject({ challenge: token });
  });
});

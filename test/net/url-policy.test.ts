import { afterEach, describe, expect, it } from 'vitest';
import { checkWebhookUrl, developmentMode, isAllowedAddress } from '../../lib/net/url-policy.ts';
import { ALLOWED_URLS, DEVELOPMENT_ONLY_URLS, FORBIDDEN_URLS, REFUSED_EVEN_IN_DEVELOPMENT } from './forbidden-urls.ts';

const production = { developmentMode: false };
const development = { developmentMode: true };

describe('webhook URL policy, as written', () => {
  it('has a corpus of at least 40 forbidden spellings', () => {
    expect(FORBIDDEN_URLS.length).toBeGreaterThanOrEqual(40);
  });

  it.each(FORBIDDEN_URLS)('refuses %s', (url) => {
    const result = checkWebhookUrl(url, production);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/^webhook_url /);
  });

  it.each(ALLOWED_URLS)('accepts %s', (url) => {
    expect(checkWebhookUrl(url, production)).toMatchObject({ ok: true });
  });

  it.each(DEVELOPMENT_ONLY_URLS)('allows %s only in development mode', (url) => {
    expect(checkWebhookUrl(url, development)).toMatchObject({ ok: true });
    expect(checkWebhookUrl(url, production)).toMatchObject({ ok: false });
  });

  it.each(REFUSED_EVEN_IN_DEVELOPMENT)('refuses %s even in development mode', (url) => {
    expect(checkWebhookUrl(url, development)).toMatchObject({ ok: false });
  });

  it('refuses overlong URLs', () => {
    expect(checkWebhookUrl(`https://hooks.example.com/${'a'.repeat(2048)}`, production)).toMatchObject({ ok: false });
  });
});

describe('resolved addresses', () => {
  it('allows loopback 127.0.0.1 and ::1 only in development mode, and nothing else private', () => {
    for (const ip of ['127.0.0.1', '::1']) {
      expect(isAllowedAddress(ip, development)).toBe(true);
      expect(isAllowedAddress(ip, production)).toBe(false);
    }
    for (const ip of ['127.0.0.2', '10.0.0.1', '::ffff:127.0.0.1', '169.254.169.254', 'fd00:ec2::254']) {
      expect(isAllowedAddress(ip, development)).toBe(false);
    }
    expect(isAllowedAddress('93.184.216.34', production)).toBe(true);
  });
});

describe('developmentMode()', () => {
  const saved = process.env['DEVELOPMENT_MODE'];
  afterEach(() => {
    if (saved === undefined) delete process.env['DEVELOPMENT_MODE'];
    else process.env['DEVELOPMENT_MODE'] = saved;
  });

  it('is on only for the exact value "true"', () => {
    for (const [value, expected] of [
      ['true', true],
      ['TRUE', false],
      ['1', false],
      ['', false],
    ] as const) {
      process.env['DEVELOPMENT_MODE'] = value;
      expect(developmentMode()).toBe(expected);
    }
    delete process.env['DEVELOPMENT_MODE'];
    expect(developmentMode()).toBe(false);
  });
});

/**
 * `whsec_` + 32 random bytes (256 bits) in standard base64 (44 characters with the `=`), the
 * Standard Webhooks secret format: `new Webhook(secret)` of the `standardwebhooks` and `svix`
 * packages accepts every one. Secrets issued before used base64url (43 characters); they stay
 * valid for `x-service-signature` (keyed with the whole string) and still get a
 * `webhook-signature`, keyed with their bytes decoded leniently.
 */
import { randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
export const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{43}=$/;
export const LEGACY_SECRET_PATTERN = /^whsec_[A-Za-z0-9_-]{43}$/;

export const newWebhookSecret = (): string => SECRET_PREFIX + randomBytes(32).toString('base64');

/** The HMAC key of the Standard Webhooks signature: the secret's bytes after `whsec_`. */
export const standardSigningKey = (secret: string): Buffer =>
  // Node's base64 decoder also reads base64url, so legacy secrets decode to their 32 bytes too.
  Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');

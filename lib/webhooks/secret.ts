import { randomBytes } from 'node:crypto';

/** `whsec_` + 32 random bytes (256 bits) in base64url: 43 characters after the prefix. */
export const SECRET_PREFIX = 'whsec_';
export const SECRET_PATTERN = /^whsec_[A-Za-z0-9_-]{43}$/;

export const newWebhookSecret = (): string => SECRET_PREFIX + randomBytes(32).toString('base64url');

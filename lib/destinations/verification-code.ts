/**
 * Verification codes: 10 characters of Crockford base32 (50 bits) in two groups, shown once in
 * the verification message; the item keeps their SHA-256 only. With DESTINATIONS.maxWrongCodes
 * tries per code, guessing one is a chance of 5 in 2^50.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function newVerificationCode(): string {
  const chars = [...randomBytes(10)].map((b) => ALPHABET[b % 32]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** Case, spaces and the hyphen do not matter: what a person copies from a console may differ in them. */
const normalized = (code: string): string => code.toUpperCase().replace(/[\s-]/g, '');

export const codeHash = (code: string): string => createHash('sha256').update(normalized(code)).digest('hex');

export function codeMatches(code: string, hash: string): boolean {
  const given = Buffer.from(codeHash(code), 'hex');
  const kept = Buffer.from(hash, 'hex');
  return given.length === kept.length && timingSafeEqual(given, kept);
}

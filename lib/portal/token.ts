/**
 * Portal link tokens: `pt_<link id hex>.<secret>`. The link id names the stored link (so the
 * authorizer finds it with one GetItem and an owner revokes it by id); only the SHA-256 of the
 * whole token is stored, compared in constant time. Never an API key: `pt_` tokens are refused
 * wherever an `mk_` key is looked up, and the other way round.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const PORTAL_TOKEN_PREFIX = 'pt_';
export const PORTAL_LINK_ID_PREFIX = 'pl_';
/** The longest life a link may ask for, and the default (issue 25: at most an hour). */
export const PORTAL_LINK_MAX_SECONDS = 3600;
export const PORTAL_LINK_MIN_SECONDS = 60;

const TOKEN = /^pt_([0-9a-f]{16})\.([A-Za-z0-9_-]{43})$/;

export const hashPortalToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

export function newPortalToken(): { linkId: string; token: string; hash: string } {
  const idHex = randomBytes(8).toString('hex');
  const token = `${PORTAL_TOKEN_PREFIX}${idHex}.${randomBytes(32).toString('base64url')}`;
  return { linkId: `${PORTAL_LINK_ID_PREFIX}${idHex}`, token, hash: hashPortalToken(token) };
}

/** The link id a token names, or undefined for anything that is not a portal token's shape. */
export function portalLinkIdOf(token: string): string | undefined {
  const match = TOKEN.exec(token);
  return match ? `${PORTAL_LINK_ID_PREFIX}${match[1]}` : undefined;
}

export function tokenMatches(token: string, storedHash: string): boolean {
  const given = Buffer.from(hashPortalToken(token), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/**
 * API keys are 32 random bytes; only their SHA-256 is stored. A slow password hash buys nothing
 * for a 256-bit random secret, and a fast one keeps the authorizer at one GetItem.
 */

import { createHash, randomBytes } from 'node:crypto';
import type { Caller } from '../core/caller.ts';
import { newUuid } from '../core/ids.ts';
import { nowIso } from '../core/time.ts';
import { keyItemByHash, putUserWithKey } from './store.ts';

const KEY_PREFIX = 'mk_';

const newApiKey = (): string => KEY_PREFIX + randomBytes(32).toString('base64url');

export const hashApiKey = (apiKey: string): string => createHash('sha256').update(apiKey, 'utf8').digest('hex');

/**
 * The key's identity for per-key limits: the value of its API Gateway API key, which the
 * authorizer returns as `usageIdentifierKey` (the usage plan counts requests against it) and the
 * local runtime's throttle is keyed by. It is the stored hash, so the key itself is never handed to
 * API Gateway; knowing it is no use to anyone, as callers cannot send it (the API's key source is the authorizer).
 */
export const usageIdentifierFor = (apiKey: string): string => hashApiKey(apiKey);

/**
 * A key's public name, for listing and revoking: derived from the hash, so it reveals nothing the
 * stored hash does not, and needs no lookup table of its own.
 */
export const keyIdOf = (hash: string): string => `key_${hash.slice(0, 20)}`;

export interface NewUser {
  name: string;
  verified?: boolean;
  operator?: boolean;
}

export interface IssuedKey {
  user_id: string;
  workspace_id: string;
  key_id: string;
  api_key: string;
}

/**
 * A new user with a new key. `register` runs after the key is made and before anything is stored
 * (the admin command registers the key with API Gateway's usage plan there); if it throws, nothing
 * is stored. `apiKey` is chosen only by the local demo seed, whose key the samples name.
 */
export async function createUserWithKey(
  input: NewUser,
  register?: (issued: IssuedKey) => Promise<void>,
  apiKey = newApiKey(),
): Promise<IssuedKey> {
  const user: Caller = {
    userId: newUuid(),
    workspaceId: newUuid(),
    name: input.name,
    verified: input.verified ?? false,
    operator: input.operator ?? false,
  };
  const hash = hashApiKey(apiKey);
  const keyId = keyIdOf(hash);
  const issued: IssuedKey = { user_id: user.userId, workspace_id: user.workspaceId, key_id: keyId, api_key: apiKey };
  await register?.(issued);
  await putUserWithKey(user, hash, keyId, nowIso());
  return issued;
}

/**
 * The user behind a key, or undefined for an unknown or revoked one. A strongly consistent read:
 * a key revoked a moment ago is refused by the very next call (the authorizer's answers are not
 * cached: docs/operations.md, "Revoking a key").
 */
export async function findCallerByApiKey(apiKey: string): Promise<Caller | undefined> {
  if (!apiKey.startsWith(KEY_PREFIX) || apiKey.length > 200) return undefined;
  return findCallerByKeyHash(hashApiKey(apiKey));
}

/**
 * The same by the key's hash (its usage identity, which the caller carries as `usageKey`): a push
 * connection and a portal link keep only that, and ask again at each use.
 */
export async function findCallerByKeyHash(hash: string): Promise<Caller | undefined> {
  const Item = await keyItemByHash(hash);
  if (!Item || Item['revokedAt'] !== undefined) return undefined;
  return {
    userId: Item['userId'],
    workspaceId: Item['workspaceId'],
    name: Item['name'],
    verified: Item['verified'] === true,
    operator: Item['operator'] === true,
    usageKey: hash,
  };
}

/** `Authorization: Bearer <key>` → the key, or undefined when the header has another shape. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

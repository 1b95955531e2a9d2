import { nowIso } from '../core/time.ts';
import * as keys from '../store/key-builders.ts';
import {
  keyHashOf,
  keyItemById,
  keyItemsPage,
  markKeyRevoked,
  type StoredItem,
  setVerifiedOn,
  userItem,
} from './store.ts';

/** What the admin commands show of a key: never the key, never its hash. */
export interface KeySummary {
  key_id: string;
  user_id: string;
  name: string;
  verified: boolean;
  operator: boolean;
  created_at: string;
  revoked_at: string | null;
}

const summary = (item: StoredItem): KeySummary => ({
  key_id: item['keyId'],
  user_id: item['userId'],
  name: item['name'],
  verified: item['verified'] === true,
  operator: item['operator'] === true,
  created_at: item['createdAt'],
  revoked_at: item['revokedAt'] ?? null,
});

/** Every key (or one user's), in key-id order, one index page at a time. */
export async function* listKeys(filter: { userId?: string } = {}): AsyncGenerator<KeySummary> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await keyItemsPage(filter.userId, startKey);
    for (const item of page.items) yield summary(item);
    startKey = page.nextKey;
  } while (startKey);
}

/** A revoked key: what the admin command shows, and its usage identifier (its hash), which is never shown. */
export interface RevokedKey {
  summary: KeySummary;
  usageKey: string;
}

/**
 * Marks a key revoked (the first revocation's time stays): from here on the authorizer refuses the
 * key and every portal link it made. Undefined when no such key exists.
 */
export async function revokeKey(keyId: string): Promise<RevokedKey | undefined> {
  const stored = await keyItemById(keyId);
  if (!stored) return undefined;
  const revoked = await markKeyRevoked({ PK: stored['PK'], SK: stored['SK'] }, nowIso());
  return { summary: summary(revoked), usageKey: keyHashOf(revoked) };
}

/** Revokes every key of a user; undefined when there is no such user. */
export async function revokeUserKeys(userId: string): Promise<RevokedKey[] | undefined> {
  const user = await userItem(userId);
  if (!user) return undefined;
  const revoked: RevokedKey[] = [];
  for (const keyId of (user['keyIds'] as string[] | undefined) ?? []) {
    const done = await revokeKey(keyId);
    if (done) revoked.push(done);
  }
  return revoked;
}

/**
 * Marks a user verified or not, on the user and on every key of theirs (the authorizer reads the
 * flag from the key item, so the next request carries it). False when there is no such user.
 */
export async function setUserVerified(userId: string, verified: boolean): Promise<boolean> {
  const user = await userItem(userId);
  if (!user) return false;
  const targets = [keys.user(userId)];
  for (const keyId of (user['keyIds'] as string[] | undefined) ?? []) {
    const stored = await keyItemById(keyId);
    if (stored) targets.push({ PK: stored['PK'], SK: stored['SK'] });
  }
  await setVerifiedOn(targets, verified);
  return true;
}

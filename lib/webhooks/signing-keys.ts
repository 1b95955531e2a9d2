/**
 * An agent's ed25519 key pairs for `v1a` signatures (docs/webhooks.md, "ed25519 signatures"): the
 * current one and, during a rotation's overlap, the previous one, both on the agent item with their
 * private halves sealed (data-key.ts). Signing uses both while the overlap lasts, the same rule as
 * the webhook secrets (rotation.ts), so a receiver that holds either public key verifies.
 */
import type { KeyObject } from 'node:crypto';
import SmallLru from '../aws/small-lru.ts';
import { type SealedSecret, seal, unseal } from './data-key.ts';
import { newSigningKeyPair, type PublicJwk, privateKeyFromDer, publicJwk } from './ed25519.ts';

export interface StoredSigningKey {
  kid: string;
  /** The public key, base64url (the JWK's `x`). */
  x: string;
  /** The PKCS#8 private key, sealed. */
  sealed: SealedSecret;
  created_at: string;
}

export interface SigningKeyFields {
  signing_key?: StoredSigningKey | null;
  previous_signing_key?: StoredSigningKey | null;
  /** Unix seconds. */
  previous_signing_key_expires_at?: number | null;
}

export interface PublishedKey extends PublicJwk {
  status: 'current' | 'previous';
  created_at: string;
  /** When the previous key stops signing (ISO 8601); null for the current key. */
  expires_at: string | null;
}

/** Opened private keys by kid: a warm worker signs without AES or KMS. */
const opened = new SmallLru<string, KeyObject>(256);

export async function newStoredSigningKey(agentId: string, now: string): Promise<StoredSigningKey> {
  const pair = newSigningKeyPair(agentId);
  return { kid: pair.kid, x: pair.publicKey, sealed: await seal(pair.privateKey), created_at: now };
}

/** The keys that sign now: the current one, then the previous one while its overlap lasts. */
export function liveSigningKeys(agent: SigningKeyFields, now: Date = new Date()): StoredSigningKey[] {
  const current = agent.signing_key;
  if (!current) return [];
  const previous = agent.previous_signing_key;
  const previousLive =
    previous &&
    previous.kid !== current.kid &&
    typeof agent.previous_signing_key_expires_at === 'number' &&
    agent.previous_signing_key_expires_at > now.getTime() / 1000;
  return previousLive ? [current, previous] : [current];
}

export function publishedKeys(agent: SigningKeyFields, now: Date = new Date()): PublishedKey[] {
  return liveSigningKeys(agent, now).map((key, i) => ({
    ...publicJwk(key.kid, key.x),
    status: i === 0 ? 'current' : 'previous',
    created_at: key.created_at,
    expires_at: i === 0 ? null : new Date(agent.previous_signing_key_expires_at! * 1000).toISOString(),
  }));
}

/** The private keys to sign a request with now (unsealed once per process and key). */
export async function ed25519SigningKeys(agent: SigningKeyFields, now: Date = new Date()): Promise<KeyObject[]> {
  return Promise.all(
    liveSigningKeys(agent, now).map(async (key) => {
      const known = opened.get(key.kid);
      if (known) return known;
      const privateKey = privateKeyFromDer(await unseal(key.sealed));
      opened.set(key.kid, privateKey);
      return privateKey;
    }),
  );
}

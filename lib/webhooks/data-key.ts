/**
 * Envelope encryption of the agents' ed25519 private keys (docs/webhooks.md, "ed25519 signatures"):
 * a private key is sealed with AES-256-GCM under a data key, and the data key is stored beside it
 * only wrapped:
 *
 * - in AWS by KMS (`WEBHOOK_SIGNING_KMS_KEY_ID`, set by infra): GenerateDataKey to make one,
 *   Decrypt to unwrap it, with an encryption context naming the purpose, so a wrapped key lifted
 *   from the table is useless without the role's grant on that KMS key;
 * - locally (`npm start`, tests) by a 32-byte key file, `DATA_DIR/webhook-signing.key`, made on first
 *   use with mode 0600 (`DATA_DIR=:memory:`: a key of this process only).
 *
 * KMS stays out of the hot path: a process makes one data key and seals every key pair it creates
 * with it for DATA_KEY_REUSE_MS, and keeps the data keys it unwrapped (SmallLru, by wrapped value),
 * so a warm delivery worker signs with no KMS call; a cold one makes one Decrypt per data key it
 * meets (one per rotating function instance per hour, not one per agent).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decrypt, generateDataKey } from '../aws/kms.ts';
import SmallLru from '../aws/small-lru.ts';
import { setting } from '../core/environment.ts';
import { InvariantError } from '../core/errors.ts';

/** How long one process seals new private keys under the same data key. */
export const DATA_KEY_REUSE_MS = 3600_000;
/** Wrapped data keys kept unwrapped per process: one per sealing instance and hour is few. */
const UNWRAPPED_CAPACITY = 64;
const ENCRYPTION_CONTEXT = { purpose: 'webhook-signing-key' } as const;

export interface SealedSecret {
  /** The wrapped data key: `kms:<CiphertextBlob base64>` or `local:<iv>.<ciphertext>.<tag>` (base64 each). */
  dk: string;
  iv: string;
  ct: string;
  tag: string;
}

interface DataKey {
  plaintext: Buffer;
  wrapped: string;
  madeAt: number;
  /** What wrapped it (the KMS key, or the local key file's folder): a process reuses it only for the same. */
  wrapper: string;
}

let current: DataKey | undefined;
const unwrapped = new SmallLru<string, Buffer>(UNWRAPPED_CAPACITY);
let memoryKek: Buffer | undefined;

export async function seal(plain: Buffer): Promise<SealedSecret> {
  const key = await dataKeyForSealing();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.plaintext, iv);
  const ct = Buffer.concat([cipher.update(plain), cipher.final()]);
  return {
    dk: key.wrapped,
    iv: iv.toString('base64'),
    ct: ct.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
  };
}

export async function unseal(sealed: SealedSecret): Promise<Buffer> {
  return gcmOpen(await unwrap(sealed.dk), sealed.iv, sealed.ct, sealed.tag);
}

async function dataKeyForSealing(): Promise<DataKey> {
  const kmsKeyId = setting('WEBHOOK_SIGNING_KMS_KEY_ID');
  const wrapper = kmsKeyId ? `kms:${kmsKeyId}` : `local:${setting('DATA_DIR')}`;
  if (current?.wrapper === wrapper && Date.now() - current.madeAt < DATA_KEY_REUSE_MS) return current;
  let made: { plaintext: Buffer; wrapped: string };
  if (kmsKeyId) {
    const generated = await generateDataKey(kmsKeyId, ENCRYPTION_CONTEXT);
    made = { plaintext: generated.plaintext, wrapped: `kms:${generated.ciphertext.toString('base64')}` };
  } else {
    const plaintext = randomBytes(32);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', localKek(), iv);
    const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    made = {
      plaintext,
      wrapped: `local:${iv.toString('base64')}.${ct.toString('base64')}.${cipher.getAuthTag().toString('base64')}`,
    };
  }
  unwrapped.set(made.wrapped, made.plaintext);
  current = { ...made, madeAt: Date.now(), wrapper };
  return current;
}

async function unwrap(wrapped: string): Promise<Buffer> {
  const known = unwrapped.get(wrapped);
  if (known) return known;
  let plaintext: Buffer;
  if (wrapped.startsWith('kms:')) {
    plaintext = await decrypt(Buffer.from(wrapped.slice(4), 'base64'), ENCRYPTION_CONTEXT);
  } else if (wrapped.startsWith('local:')) {
    const [iv, ct, tag] = wrapped.slice(6).split('.');
    if (!iv || !ct || !tag) throw new InvariantError('a local wrapped data key is malformed');
    plaintext = gcmOpen(localKek(), iv, ct, tag);
  } else {
    throw new InvariantError('a wrapped data key names no known wrapper');
  }
  unwrapped.set(wrapped, plaintext);
  return plaintext;
}

function gcmOpen(key: Buffer, iv: string, ct: string, tag: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64')), decipher.final()]);
}

/** The local key-encryption key; never used inside Lambda, where a missing KMS key id is a deployment fault. */
function localKek(): Buffer {
  if (setting('AWS_LAMBDA_FUNCTION_NAME'))
    throw new InvariantError('WEBHOOK_SIGNING_KMS_KEY_ID is not set: ed25519 keys cannot be sealed or opened');
  const dir = setting('DATA_DIR');
  if (dir === ':memory:') {
    memoryKek ??= randomBytes(32);
    return memoryKek;
  }
  const file = join(dir, 'webhook-signing.key');
  try {
    return checkedKek(readFileSync(file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dir, { recursive: true });
  try {
    // `wx`: two processes making it at once keep the first one's key.
    writeFileSync(file, randomBytes(32), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return checkedKek(readFileSync(file));
}

function checkedKek(bytes: Buffer): Buffer {
  if (bytes.length !== 32) throw new InvariantError('DATA_DIR/webhook-signing.key is not 32 bytes');
  return bytes;
}

/** For tests: forget the process's data keys, as a new Lambda instance would. */
export function forgetDataKeys(): void {
  current = undefined;
  unwrapped.clear();
}

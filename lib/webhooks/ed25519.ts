/**
 * Standard Webhooks `v1a` signatures: ed25519 over `<webhook-id>.<webhook-timestamp>.<body>`,
 * base64 in `webhook-signature` beside the `v1,` HMACs (`v1a,<signature>`). A receiver needs only
 * the public key, so it can check deliveries without holding a secret that could also forge them.
 *
 * Public keys travel as JWKs (RFC 8037: `kty: OKP`, `crv: Ed25519`, `x` the 32 raw bytes in
 * base64url); `kid` is the agent's id and a random suffix, so the service-wide key route
 * (`GET /api/v1/webhook-keys/{kid}`) finds the agent with one GetItem and no index.
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

export const KID_PATTERN = /^(agt_[0-9A-Z]{26})\.([0-9a-f]{12})$/;

export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export interface NewKeyPair {
  kid: string;
  /** The public key's 32 bytes, base64url (the JWK's `x`). */
  publicKey: string;
  /** PKCS#8 DER: what is sealed (key-envelope.ts) and stored. */
  privateKey: Buffer;
}

export function newSigningKeyPair(agentId: string): NewKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' });
  return {
    kid: `${agentId}.${randomBytes(6).toString('hex')}`,
    publicKey: jwk.x as string,
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }),
  };
}

export const agentOfKid = (kid: string): string | undefined => KID_PATTERN.exec(kid)?.[1];

export const publicJwk = (kid: string, x: string): PublicJwk => ({
  kty: 'OKP',
  crv: 'Ed25519',
  x,
  kid,
  alg: 'EdDSA',
  use: 'sig',
});

export const privateKeyFromDer = (der: Buffer): KeyObject =>
  createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });

export function computeV1a(privateKey: KeyObject, id: string, timestamp: string, body: string): string {
  return `v1a,${sign(null, Buffer.from(`${id}.${timestamp}.${body}`, 'utf8'), privateKey).toString('base64')}`;
}

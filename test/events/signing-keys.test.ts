import { createPublicKey, verify } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Ed25519PublicJwk, verifyWebhook } from '../../client/index.ts';
import { JWKS_MAX_AGE_SECONDS } from '../../lib/core/settings.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { forgetDataKeys, unseal } from '../../lib/webhooks/data-key.ts';
import { privateKeyFromDer } from '../../lib/webhooks/ed25519.ts';
import type { StoredSigningKey } from '../../lib/webhooks/signing-keys.ts';
import type { EventPipeline } from '../../local/emulators/event-pipeline.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import {
  createAgent,
  type Delivered,
  enableWebhook,
  startFilePipeline,
  startWebhookReceiver,
  waitFor,
} from './support.ts';

/**
 * ed25519 `v1a` signatures (docs/webhooks.md, "ed25519 signatures"): deliveries to a real receiver
 * verified with Node's own `crypto.verify` and with the client's `verifyWebhook` (Web Crypto), the
 * rotation overlap, the keyless JWKS, and the private key sealed at rest under the local key file.
 */
process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,1,1';
const dataDir = scratchDir('signing-keys-');
process.env['DATA_DIR'] = dataDir;

let pipeline: EventPipeline;
let owner: TestUser;

beforeAll(async () => {
  pipeline = await startFilePipeline();
  owner = await createTestUser();
});
afterAll(async () => {
  await pipeline?.stop();
});

const rotateKey = (agentId: string, body?: unknown, caller = owner) =>
  invoke('rotateWebhookSigningKey', { caller, params: { id: agentId }, ...(body === undefined ? {} : { body }) });
const publicKeys = async (agentId: string) =>
  (await invoke('getWebhookPublicKeys', { caller: owner, params: { id: agentId } })).body as {
    v1a: boolean;
    keys: Array<Ed25519PublicJwk & { kid: string; status: string }>;
  };

/** The v1a entries a delivery carries, each checked with node:crypto against `jwk`. */
function nodeVerifies(jwk: Ed25519PublicJwk, d: Delivered): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
  const message = Buffer.from(`${d.headers['webhook-id']}.${d.headers['webhook-timestamp']}.${d.body}`);
  return v1aOf(d).some((sig) => verify(null, message, key, Buffer.from(sig, 'base64')));
}
const v1aOf = (d: Delivered) =>
  String(d.headers['webhook-signature'])
    .split(' ')
    .filter((s) => s.startsWith('v1a,'))
    .map((s) => s.slice(4));
const clientVerifies = (jwk: Ed25519PublicJwk | Ed25519PublicJwk[], d: Delivered) =>
  verifyWebhook({ publicKeys: jwk, headers: d.headers as Record<string, string>, rawBody: d.body }).then(
    () => true,
    () => false,
  );

async function testDelivery(agentId: string, receiver: { deliveries: Delivered[] }): Promise<Delivered> {
  const sent = await invoke('sendTestEvent', { caller: owner, params: { id: agentId } });
  expect(sent.status).toBe(202);
  return waitFor(() => receiver.deliveries.find((d) => d.json.id === sent.body.event_id), 'the test delivery', 30_000);
}

describe('v1a signatures', () => {
  it('deliveries carry v1a beside v1: node:crypto, the client and standardwebhooks verify; rotation overlaps', async () => {
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    expect(await publicKeys(agentId)).toEqual({ v1a: false, keys: [] });
    const turnedOn = await rotateKey(agentId);
    expect(turnedOn.status, JSON.stringify(turnedOn.body)).toBe(200);
    expect(turnedOn.body.keys).toHaveLength(1);
    const first = turnedOn.body.keys[0];
    expect(first).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', status: 'current', expires_at: null });
    const secret = await enableWebhook(owner, agentId, receiver.url, ['contract.funded']);

    const one = await testDelivery(agentId, receiver);
    expect(v1aOf(one)).toHaveLength(1);
    expect(nodeVerifies(first, one)).toBe(true);
    expect(await clientVerifies(first, one)).toBe(true);
    // v1 receivers are not disturbed: the reference library skips the v1a entry.
    expect(() => new Webhook(secret).verify(one.body, one.headers as Record<string, string>)).not.toThrow();
    // A tampered body fails both.
    const tampered = { ...one, body: one.body.replace('"data":{}', '"data":{"x":1}') };
    expect(tampered.body).not.toBe(one.body);
    expect(nodeVerifies(first, tampered)).toBe(false);
    expect(await clientVerifies(first, tampered)).toBe(false);

    // The keyless JWKS names the same key.
    const jwks = await invoke('getWebhookJwks', { params: { id: agentId } });
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys).toEqual([
      { kty: 'OKP', crv: 'Ed25519', x: first.x, kid: first.kid, alg: 'EdDSA', use: 'sig' },
    ]);

    // Rotation: both keys sign until the overlap ends.
    const rotated = await rotateKey(agentId, { expire_previous_in_seconds: 3600 });
    expect(rotated.body.keys.map((k: { status: string }) => k.status)).toEqual(['current', 'previous']);
    const second = rotated.body.keys[0];
    expect(rotated.body.keys[1].kid).toBe(first.kid);
    const two = await testDelivery(agentId, receiver);
    expect(v1aOf(two)).toHaveLength(2);
    for (const jwk of [first, second]) {
      expect(nodeVerifies(jwk, two), jwk.kid).toBe(true);
      expect(await clientVerifies(jwk, two), jwk.kid).toBe(true);
    }
    expect((await invoke('getWebhookJwks', { params: { id: agentId } })).body.keys).toHaveLength(2);

    // 0 ends the overlap at once: only the newest key signs.
    const third = (await rotateKey(agentId, { expire_previous_in_seconds: 0 })).body.keys;
    expect(third).toHaveLength(1);
    const three = await testDelivery(agentId, receiver);
    expect(v1aOf(three)).toHaveLength(1);
    expect(nodeVerifies(third[0], three)).toBe(true);
    for (const old of [first, second]) {
      expect(nodeVerifies(old, three)).toBe(false);
      expect(await clientVerifies(old, three)).toBe(false);
    }
    expect(await clientVerifies([first, third[0]], three)).toBe(true);

    // Off: v1 only again, and the JWKS is gone.
    expect((await invoke('dropWebhookSigningKeys', { caller: owner, params: { id: agentId } })).body).toEqual({
      v1a: false,
      keys: [],
    });
    const four = await testDelivery(agentId, receiver);
    expect(v1aOf(four)).toEqual([]);
    expect(await clientVerifies(third[0], four)).toBe(false);
    expect((await invoke('getWebhookJwks', { params: { id: agentId } })).status).toBe(404);
  }, 90_000);

  it('the private key is stored sealed under a data key the local key file wraps; a fresh process opens it', async () => {
    const agentId = await createAgent(owner);
    const jwk = (await rotateKey(agentId)).body.keys[0];
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.agent(agentId), ConsistentRead: true }),
    );
    const stored = Item!['signing_key'] as StoredSigningKey;
    expect(Object.keys(stored.sealed).sort()).toEqual(['ct', 'dk', 'iv', 'tag']);
    expect(stored.sealed.dk).toMatch(/^local:/);
    const kek = join(dataDir, 'webhook-signing.key');
    expect(readFileSync(kek)).toHaveLength(32);
    expect(statSync(kek).mode & 0o077).toBe(0);

    forgetDataKeys(); // as a new process: the data key is unwrapped again with the key file
    const privateKey = privateKeyFromDer(await unseal(stored.sealed));
    expect(createPublicKey(privateKey).export({ format: 'jwk' }).x).toBe(jwk.x);
    // A changed byte of the sealed key is refused (AES-GCM's tag), never a wrong key used.
    const flipped = Buffer.from(stored.sealed.ct, 'base64');
    flipped[0]! ^= 1;
    await expect(unseal({ ...stored.sealed, ct: flipped.toString('base64') })).rejects.toThrow();
  });

  it('the JWKS is cacheable: public max-age and an ETag; If-None-Match answers 304 until the keys change; a 404 is not kept', async () => {
    const agentId = await createAgent(owner);
    const missing = await invoke('getWebhookJwks', { params: { id: agentId } });
    expect(missing.status).toBe(404);
    expect(missing.headers['cache-control']).toBe('no-store');
    expect(missing.headers['etag']).toBeUndefined();

    await rotateKey(agentId);
    const first = await invoke('getWebhookJwks', { params: { id: agentId } });
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe(`public, max-age=${JWKS_MAX_AGE_SECONDS}`);
    const etag = first.headers['etag']!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    // The same keys, the same tag (whichever instance answers: it is the answer's hash).
    expect((await invoke('getWebhookJwks', { params: { id: agentId } })).headers['etag']).toBe(etag);

    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await invoke('getWebhookJwks', {
        params: { id: agentId },
        headers: { 'If-None-Match': ifNoneMatch },
      });
      expect(again.status, ifNoneMatch).toBe(304);
      expect(again.raw.body, ifNoneMatch).toBe('');
      expect(again.headers['content-type']).toBeUndefined();
      expect(again.headers).toMatchObject({ etag, 'cache-control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` });
    }
    const otherTag = await invoke('getWebhookJwks', {
      params: { id: agentId },
      headers: { 'If-None-Match': '"other"' },
    });
    expect(otherTag.status).toBe(200);
    expect(otherTag.body).toEqual(first.body);

    // A rotation changes the set, so the old tag no longer matches: 200 with the new set and tag.
    await rotateKey(agentId, { expire_previous_in_seconds: 3600 });
    const rotated = await invoke('getWebhookJwks', { params: { id: agentId }, headers: { 'If-None-Match': etag } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.keys).toHaveLength(2);
    expect(rotated.headers['etag']).not.toBe(etag);
  });

  it('owner only: another account gets 404; an agent without keys has no JWKS; bodies are strict', async () => {
    const agentId = await createAgent(owner);
    const stranger = await createTestUser();
    expect((await rotateKey(agentId, undefined, stranger)).status).toBe(404);
    expect((await invoke('getWebhookPublicKeys', { caller: stranger, params: { id: agentId } })).status).toBe(404);
    expect((await invoke('dropWebhookSigningKeys', { caller: stranger, params: { id: agentId } })).status).toBe(404);
    expect((await invoke('getWebhookJwks', { params: { id: agentId } })).status).toBe(404);
    expect((await invoke('getWebhookJwks', { params: { id: 'agt_nope' } })).status).toBe(404);
    for (const body of [{ expire_previous_in_seconds: 86_401 }, { other: 1 }])
      expect((await rotateKey(agentId, body)).status, JSON.stringify(body)).toBe(400);
    expect(await publicKeys(agentId)).toEqual({ v1a: false, keys: [] });
  });
});

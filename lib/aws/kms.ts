/**
 * The two KMS calls the signing keys' envelope makes (lib/webhooks/data-key.ts), GenerateDataKey and
 * Decrypt, as KMS's JSON protocol over fetch, signed with the SDK's own SigV4 signer
 * (`@smithy/signature-v4`, which every bundle already carries for DynamoDB) and Lambda's
 * environment credentials (`@aws-sdk/credential-provider-env`, the one source lib/aws/env-credentials.ts keeps).
 *
 * Why not `@aws-sdk/client-kms`: measured, it put three bundles over the budget (verifyWebhook
 * floor + 99.7 KB, deliver + 95.2 KB, rotateWebhookSigningKey + 90.0 KB, against floor + 80 KB):
 * the client's protocol, serde and endpoint rules for 50-odd operations, for two.
 */
import { createHash, createHmac } from 'node:crypto';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { SignatureV4 } from '@smithy/signature-v4';
import { setting } from '../core/environment.ts';
import { InvariantError } from '../core/errors.ts';

/** SigV4's hash: node:crypto's SHA-256, and HMAC-SHA-256 when given a key. */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', toBuffer(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(toBuffer(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}
const toBuffer = (data: string | ArrayBuffer | ArrayBufferView): Buffer =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

export interface KmsOptions {
  /** Tests: a server on 127.0.0.1 instead of `https://kms.<region>.amazonaws.com`. */
  endpoint?: string;
  credentials?: () => Promise<{ accessKeyId: string; secretAccessKey: string; sessionToken?: string }>;
}

/** KMS's error answer (`__type`, `message`) as an error that names it. */
export class KmsError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(`KMS ${type}: ${message}`);
    this.name = 'KmsError';
  }
}

async function call(target: string, payload: unknown, options: KmsOptions): Promise<Record<string, unknown>> {
  const region = setting('AWS_REGION') ?? 'us-east-1';
  const url = new URL(options.endpoint ?? `https://kms.${region}.amazonaws.com/`);
  const body = JSON.stringify(payload);
  const signer = new SignatureV4({
    service: 'kms',
    region,
    sha256: Sha256,
    credentials: options.credentials ?? fromEnv(),
  });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    headers: {
      host: url.host,
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `TrentService.${target}`,
    },
    body,
  });
  const response = await fetch(url, {
    method: 'POST',
    headers: signed.headers,
    body,
    signal: AbortSignal.timeout(5000),
  });
  const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    const type = String(answer['__type'] ?? `HTTP ${response.status}`)
      .split('#')
      .pop()!;
    throw new KmsError(type, String(answer['message'] ?? answer['Message'] ?? ''));
  }
  return answer;
}

function bytesOf(answer: Record<string, unknown>, field: string): Buffer {
  const value = answer[field];
  if (typeof value !== 'string') throw new InvariantError(`KMS answered without ${field}`);
  return Buffer.from(value, 'base64');
}

export async function generateDataKey(
  keyId: string,
  context: Record<string, string>,
  options: KmsOptions = {},
): Promise<{ plaintext: Buffer; ciphertext: Buffer }> {
  const answer = await call(
    'GenerateDataKey',
    { KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: context },
    options,
  );
  return { plaintext: bytesOf(answer, 'Plaintext'), ciphertext: bytesOf(answer, 'CiphertextBlob') };
}

export async function decrypt(
  ciphertext: Buffer,
  context: Record<string, string>,
  options: KmsOptions = {},
): Promise<Buffer> {
  const answer = await call(
    'Decrypt',
    { CiphertextBlob: ciphertext.toString('base64'), EncryptionContext: context },
    options,
  );
  return bytesOf(answer, 'Plaintext');
}

/**
 * The two KMS calls the signing keys' envelope makes (lib/webhooks/data-key.ts), GenerateDataKey and
 * Decrypt, as KMS's JSON protocol (json-protocol.ts: signed with the SDK's own SigV4 signer and
 * Lambda's environment credentials).
 *
 * Why not `@aws-sdk/client-kms`: measured, it put three bundles over the budget (verifyWebhook
 * floor + 99.7 KB, deliver + 95.2 KB, rotateWebhookSigningKey + 90.0 KB, against floor + 80 KB):
 * the client's protocol, serde and endpoint rules for 50-odd operations, for two.
 */
import { InvariantError } from '../core/errors.ts';
import { AwsApiError, callJsonApi, type JsonCallOptions, KMS_API } from './json-protocol.ts';

export type KmsOptions = JsonCallOptions;

/** KMS's error answer, named as the callers and tests know it. */
export { AwsApiError as KmsError };

const call = (operation: string, payload: unknown, options: KmsOptions) =>
  callJsonApi(KMS_API, operation, payload, options);

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
    // In the order of the SDK's own request, so the body is the SDK's byte for byte (test/aws/hand-made-calls.test.ts).
    { KeyId: keyId, EncryptionContext: context, KeySpec: 'AES_256' },
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

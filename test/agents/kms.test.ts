import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { decrypt, generateDataKey, KmsError } from '../../lib/aws/kms.ts';

/**
 * lib/aws/kms.ts against a server on 127.0.0.1 standing in for KMS's endpoint: the request is KMS's
 * JSON protocol, and its SigV4 signature is recomputed here by hand from the AWS documentation's
 * recipe (canonical request → string to sign → derived key), not with the signer under test.
 * What KMS itself decides (key policy, the encryption context) needs AWS and is not tested here.
 */
const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'token-1',
};

interface Seen {
  headers: http.IncomingHttpHeaders;
  body: string;
}
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function fakeKms(
  answer: (seen: Seen) => { status: number; body: unknown },
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(request);
      const { status, body } = answer(request);
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`, seen };
}

/** SigV4 as docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html spells it. */
function expectedSignature(seen: Seen, host: string): string {
  const auth = String(seen.headers['authorization']);
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(auth)![1]!;
  const amzDate = String(seen.headers['x-amz-date']);
  const day = amzDate.slice(0, 8);
  const canonicalHeaders = signedHeaders
    .split(';')
    .map((name) => `${name}:${name === 'host' ? host : String(seen.headers[name]).trim()}\n`)
    .join('');
  const sha = (s: string) => createHash('sha256').update(s).digest('hex');
  const canonical = ['POST', '/', '', canonicalHeaders, signedHeaders, sha(seen.body)].join('\n');
  const scope = `${day}/us-east-1/kms/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha(canonical)].join('\n');
  const hmac = (key: string | Buffer, s: string) => createHmac('sha256', key).update(s).digest();
  const key = ['us-east-1', 'kms', 'aws4_request'].reduce(
    (k, part) => hmac(k, part),
    hmac(`AWS4${credentials.secretAccessKey}`, day),
  );
  return createHmac('sha256', key).update(toSign).digest('hex');
}

describe('KMS over its JSON protocol, SigV4-signed', () => {
  it('GenerateDataKey and Decrypt: the target, the JSON body, a signature that checks, the bytes of the answer', async () => {
    const plaintext = Buffer.alloc(32, 7);
    const blob = Buffer.from('wrapped-key-blob');
    const kms = await fakeKms((seen) =>
      seen.headers['x-amz-target'] === 'TrentService.GenerateDataKey'
        ? {
            status: 200,
            body: { Plaintext: plaintext.toString('base64'), CiphertextBlob: blob.toString('base64'), KeyId: 'k' },
          }
        : { status: 200, body: { Plaintext: plaintext.toString('base64'), KeyId: 'k' } },
    );
    const options = { endpoint: kms.url, credentials: async () => credentials };
    const context = { purpose: 'webhook-signing-key' };
    const made = await generateDataKey('arn:aws:kms:us-east-1:111122223333:key/abc', context, options);
    expect(made).toEqual({ plaintext, ciphertext: blob });
    expect(await decrypt(blob, context, options)).toEqual(plaintext);

    const [generate, open] = kms.seen;
    expect(JSON.parse(generate!.body)).toEqual({
      KeyId: 'arn:aws:kms:us-east-1:111122223333:key/abc',
      KeySpec: 'AES_256',
      EncryptionContext: context,
    });
    expect(JSON.parse(open!.body)).toEqual({ CiphertextBlob: blob.toString('base64'), EncryptionContext: context });
    const host = new URL(kms.url).host;
    for (const seen of [generate!, open!]) {
      expect(seen.headers['content-type']).toBe('application/x-amz-json-1.1');
      expect(seen.headers['x-amz-security-token']).toBe('token-1');
      const auth = String(seen.headers['authorization']);
      expect(auth).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/kms\/aws4_request, SignedHeaders=/,
      );
      expect(auth.split('SignedHeaders=')[1]!.split(',')[0]!.split(';')).toEqual(
        expect.arrayContaining(['host', 'x-amz-date', 'x-amz-target', 'content-type']),
      );
      expect(/Signature=([0-9a-f]{64})$/.exec(auth)?.[1]).toBe(expectedSignature(seen, host));
    }
  });

  it("KMS's error answer becomes a KmsError naming its type; an answer without the key is refused", async () => {
    const kms = await fakeKms((seen) =>
      seen.headers['x-amz-target'] === 'TrentService.Decrypt'
        ? { status: 400, body: { __type: 'com.amazonaws.kms#AccessDeniedException', message: 'not allowed' } }
        : { status: 200, body: { KeyId: 'k' } },
    );
    const options = { endpoint: kms.url, credentials: async () => credentials };
    const refused = await decrypt(Buffer.from('x'), {}, options).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(KmsError);
    expect(refused).toMatchObject({ type: 'AccessDeniedException', message: 'KMS AccessDeniedException: not allowed' });
    await expect(generateDataKey('k', {}, options)).rejects.toThrow(/without Plaintext/);
  });
});

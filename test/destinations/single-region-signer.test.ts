import { SignatureV4MultiRegion as SdkSigner } from '@aws-sdk/signature-v4-multi-region';
import { HttpRequest } from '@smithy/core/protocols';
import { describe, expect, it } from 'vitest';
import { Sha256 } from '../../lib/aws/node-checksums.ts';
import { SignatureV4MultiRegion } from '../../lib/aws/single-region-signer.ts';

/**
 * lib/aws/single-region-signer.ts stands in for the SDK's multi-region signer in the bundles
 * (infra/bundle.ts's alias): for a regional request it must sign exactly as the SDK's module does,
 * and refuse a global endpoint ('*', SigV4a) as that module does without a SigV4a implementation.
 */
const options = {
  service: 'events',
  region: 'eu-west-1',
  sha256: Sha256,
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret-example', sessionToken: 'token-example' },
};

const putEvents = () =>
  new HttpRequest({
    method: 'POST',
    protocol: 'https:',
    hostname: 'events.eu-west-1.amazonaws.com',
    path: '/',
    headers: {
      host: 'events.eu-west-1.amazonaws.com',
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'AWSEvents.PutEvents',
    },
    body: JSON.stringify({
      Entries: [{ Source: 'template-marketplace', DetailType: 'contract.funded', Detail: '{}' }],
    }),
  });

describe('the single-region signer the bundles use for EventBridge', () => {
  it('signs a regional request byte for byte as the SDK’s multi-region signer does', async () => {
    const signingDate = new Date('2026-11-27T03:00:00Z');
    const args = { signingDate, signingRegion: 'eu-west-1', signingService: 'events' };
    const ours = await new SignatureV4MultiRegion(options).sign(putEvents(), args);
    const sdks = await new SdkSigner(options).sign(putEvents(), args);
    expect(ours.headers).toEqual(sdks.headers);
    expect(ours.headers['authorization']).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261127\/eu-west-1\/events\/aws4_request, SignedHeaders=.*, Signature=[0-9a-f]{64}$/,
    );

    const presignArgs = { signingDate, expiresIn: 300 };
    expect((await new SignatureV4MultiRegion(options).presign(putEvents(), presignArgs)).query).toEqual(
      (await new SdkSigner(options).presign(putEvents(), presignArgs)).query,
    );
  });

  it('refuses a global endpoint (SigV4a), as the SDK’s does with no SigV4a implementation installed', async () => {
    const global = { signingRegion: '*', signingService: 'events' };
    await expect(new SignatureV4MultiRegion(options).sign(putEvents(), global)).rejects.toThrow(/SigV4a/);
    await expect(new SdkSigner({ ...options, runtime: 'node' }).sign(putEvents(), global)).rejects.toThrow(/SigV4a/);
  });
});

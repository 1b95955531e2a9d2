/**
 * Stands in for `@aws-sdk/signature-v4-multi-region` in the Lambda bundles only (infra/bundle.ts
 * aliases it). The EventBridge client signs with that module's class so that a request to a global
 * endpoint (`signingRegion: '*'`) can be signed with SigV4a; the destinations' worker puts events
 * on a bus named by its regional ARN, always SigV4, and no SigV4a implementation is bundled anyway
 * (the module then throws for '*' too). This is the SDK's own SigV4 signer with the same refusal:
 * 3.4 KB less in the destinations' worker, which carries the SQS and EventBridge clients both.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest, RequestPresigningArguments, RequestSigningArguments } from '@smithy/types';

const refused = () =>
  Promise.reject(new Error('SigV4a (a global endpoint) is not in this bundle: lib/aws/single-region-signer.ts'));

/** The module's class, as the SDK's clients construct and call it: SigV4 for every region but '*'. */
export class SignatureV4MultiRegion {
  private readonly sigv4: SignatureV4;

  constructor(options: ConstructorParameters<typeof SignatureV4>[0]) {
    this.sigv4 = new SignatureV4(options);
  }

  sign(request: HttpRequest, options: RequestSigningArguments = {}): Promise<HttpRequest> {
    return options.signingRegion === '*' ? refused() : this.sigv4.sign(request, options);
  }

  presign(request: HttpRequest, options: RequestPresigningArguments = {}): Promise<HttpRequest> {
    return options.signingRegion === '*' ? refused() : this.sigv4.presign(request, options);
  }
}

/** The module's other export its importers may name. */
export const signatureV4CrtContainer = { CrtSignerV4: null };

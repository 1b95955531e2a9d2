/**
 * Stands in for `@smithy/core/checksum` in the Lambda bundles only (infra/lambda-function.ts aliases
 * it). The DynamoDB and SQS clients take `Sha256` (request signing) and `Md5` (SQS's body checksums)
 * from it; the module's Node classes fall back on pure-JavaScript hashes for runtimes without
 * node:crypto, which are about 5 KB of every bundle that Lambda's Node never runs. These are the
 * same Node classes without the fallback.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

type Data = string | ArrayBuffer | ArrayBufferView;

const bytes = (data: Data): string | Buffer =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

const asUint8 = (buf: Buffer): Uint8Array => new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);

export class Sha256 {
  readonly digestLength = 32;
  private hash: Hash | Hmac;
  private finished = false;

  private readonly secret: Data | undefined;

  constructor(secret?: Data) {
    this.secret = secret;
    this.hash = this.make();
  }

  update(data: Data): void {
    if (this.finished) throw new Error('Attempted to update an already finished hash.');
    this.hash.update(bytes(data));
  }

  // An HMAC cannot be copied: it is finished by its digest, as in the module this replaces.
  async digest(): Promise<Uint8Array> {
    if (this.secret) {
      this.finished = true;
      return asUint8((this.hash as Hmac).digest());
    }
    return asUint8((this.hash as Hash).copy().digest());
  }

  reset(): void {
    this.hash = this.make();
    this.finished = false;
  }

  private make(): Hash | Hmac {
    return this.secret ? createHmac('sha256', bytes(this.secret)) : createHash('sha256');
  }
}

export class Md5 {
  readonly digestLength = 16;
  private hash = createHash('md5');

  update(data: Data): void {
    this.hash.update(bytes(data));
  }

  async digest(): Promise<Uint8Array> {
    return asUint8(this.hash.copy().digest());
  }

  reset(): void {
    this.hash = createHash('md5');
  }
}

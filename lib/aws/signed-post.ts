/**
 * One POST to an AWS API, signed with the SDK's own SigV4 signer (`@smithy/signature-v4`, which every
 * bundle already carries for DynamoDB), Node's SHA-256 (node-checksums.ts) and, unless given, Lambda's
 * environment credentials. The calls written by hand share it instead of a service's whole SDK
 * client (docs/cost.md, "Bundle budget"): STS AssumeRole (lib/destinations/session.ts) and the
 * JSON-protocol calls of json-protocol.ts (KMS, SQS's ChangeMessageVisibility).
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from './node-checksums.ts';

export type Credentials = () => Promise<{ accessKeyId: string; secretAccessKey: string; sessionToken?: string }>;

export interface SignedPost {
  /** The signing name: `sts`, `kms`, `sqs`. */
  service: string;
  region: string;
  url: URL;
  headers: Record<string, string>;
  body: string;
  credentials?: Credentials | undefined;
}

/** AWS's answer, whatever its status: each protocol reads its own errors. */
export async function signedPost({ service, region, url, headers, body, credentials }: SignedPost): Promise<Response> {
  const signer = new SignatureV4({ service, region, sha256: Sha256, credentials: credentials ?? fromEnv() });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    headers: { host: url.host, ...headers },
    body,
  });
  return fetch(url, {
    method: 'POST',
    headers: signed.headers as Record<string, string>,
    body,
    signal: AbortSignal.timeout(5000),
  });
}

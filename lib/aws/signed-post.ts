/**
 * One POST to an AWS API over fetch, signed by the signer signed-request.ts keeps per service and
 * region (the SDK's own SigV4, which every bundle already carries for DynamoDB; Lambda's environment
 * credentials unless given). The calls written by hand share it instead of a service's whole SDK
 * client (docs/cost.md, "Bundle budget"): STS AssumeRole (lib/destinations/session.ts) and the
 * JSON-protocol calls of json-protocol.ts (KMS, SQS's ChangeMessageVisibility).
 */
import { type Credentials, signerFor } from './signed-request.ts';

export interface SignedPost {
  /** POST unless given: a REST API's read (Lambda's GetAccountSettings) is a GET without a body. */
  method?: 'GET' | 'POST';
  /** The signing name: `sts`, `kms`, `sqs`. */
  service: string;
  region: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  credentials?: Credentials | undefined;
}

/** AWS's answer, whatever its status: each protocol reads its own errors. */
export async function signedPost({
  method = 'POST',
  service,
  region,
  url,
  headers,
  body,
  credentials,
}: SignedPost): Promise<Response> {
  const signed = await signerFor(service, region, credentials).sign({
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    headers: { host: url.host, ...headers },
    ...(body === undefined ? {} : { body }),
  });
  return fetch(url, {
    method,
    headers: signed.headers as Record<string, string>,
    ...(body === undefined ? {} : { body }),
    signal: AbortSignal.timeout(5000),
  });
}

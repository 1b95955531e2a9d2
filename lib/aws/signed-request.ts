/**
 * One request to an AWS API, signed with the SDK's own SigV4 signer (`@smithy/signature-v4`, in every
 * bundle for DynamoDB), sent with Node's http(s) over a keep-alive connection per origin. For a call
 * made so often that the SDK client's own work per call matters: the push channel's @connections
 * POST, once per frame and connection (lib/events/push/channel.ts). Measured against a bare HTTP
 * server on 127.0.0.1 (its CPU included, 2,000 posts after a warm-up): 0.70–0.94 ms of CPU per post
 * with the SDK client, 0.38–0.49 ms with this. `signed-post.ts` (fetch) costs what the SDK client
 * does (1.2–1.6 ms against the local stand-in, as the client), and serves the rare calls.
 *
 * What the SDK client would add is the caller's to decide: its retries, the error of each status.
 * The local grant guard sees each call through `awsCallMade` (client-hooks.ts), as it sees the SDK
 * clients' calls.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { SignatureV4 } from '@smithy/signature-v4';
import { type AwsService, awsCallMade } from './client-hooks.ts';
import { Sha256 } from './node-checksums.ts';

export type Credentials = () => Promise<{ accessKeyId: string; secretAccessKey: string; sessionToken?: string }>;

export interface SignedRequest {
  service: AwsService;
  /** The API's name of the operation (what IAM and the grant guard call it): `PostToConnection`. */
  operation: string;
  region: string;
  method: 'GET' | 'POST' | 'DELETE';
  url: URL;
  headers?: Record<string, string>;
  body?: string;
  credentials?: Credentials | undefined;
  timeoutMs?: number;
}

export interface SignedAnswer {
  status: number;
  body: string;
}

const signers = new Map<string, SignatureV4>();
/** A signer per credentials given, and per service and region (the signing scope), so each keeps its derived signing key from call to call. */
const signersOf = new WeakMap<Credentials, Map<string, SignatureV4>>();
/** Kept-alive connections, at most 50 per origin at once (the SDK client's default). */
const agents = {
  http: new HttpAgent({ keepAlive: true, maxSockets: 50 }),
  https: new HttpsAgent({ keepAlive: true, maxSockets: 50 }),
};

/** The signer of a service and region (or of the credentials given), kept so it reuses its derived signing key: every hand-signed call takes it from here. */
export function signerFor(service: string, region: string, credentials: Credentials | undefined): SignatureV4 {
  if (credentials) {
    let scopes = signersOf.get(credentials);
    if (!scopes) {
      scopes = new Map();
      signersOf.set(credentials, scopes);
    }
    let signer = scopes.get(`${service} ${region}`);
    if (!signer) {
      signer = new SignatureV4({ service, region, sha256: Sha256, credentials });
      scopes.set(`${service} ${region}`, signer);
    }
    return signer;
  }
  // One per service and region: the environment's credentials are read at each signing (fromEnv).
  let signer = signers.get(`${service} ${region}`);
  if (!signer) {
    signer = new SignatureV4({ service, region, sha256: Sha256, credentials: fromEnv() });
    signers.set(`${service} ${region}`, signer);
  }
  return signer;
}

/** AWS's answer, whatever its status; throws only when no answer came (the network, the timeout). */
export async function signedRequest(request: SignedRequest): Promise<SignedAnswer> {
  const { service, operation, region, method, url, headers = {}, body, credentials, timeoutMs = 5000 } = request;
  const answered = awsCallMade(service, operation, { url: url.href, body });
  const signed = await signerFor(service, region, credentials).sign({
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    headers: {
      host: url.host,
      ...headers,
      ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
    },
    ...(body === undefined ? {} : { body }),
  });
  const secure = url.protocol === 'https:';
  const answer = await new Promise<SignedAnswer>((resolve, reject) => {
    const req = (secure ? httpsRequest : httpRequest)(
      url,
      { method, headers: signed.headers, agent: secure ? agents.https : agents.http, timeout: timeoutMs },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${service} ${operation}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
  answered?.(answer.status);
  return answer;
}

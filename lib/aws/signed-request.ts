/**
 * The one transport of the AWS calls made without an SDK client: the push channel's @connections
 * posts (lib/events/push/channel.ts), KMS's and SQS's JSON-protocol calls (json-protocol.ts) and
 * STS AssumeRole (lib/destinations/session.ts). Each call is signed with the SDK's own SigV4 signer
 * (`@smithy/signature-v4`, in every bundle for DynamoDB) and sent with fetch, or, for the push
 * channel's frequent posts, Node's http(s) over a keep-alive connection per origin (http-send.ts),
 * with the manners of an SDK client:
 *
 * - the SDK's standard retries (retry-policy.ts): throttling, 5xx and network failures are tried
 *   again with jittered backoff, within a per-process retry budget;
 * - clock-skew correction (clock-skew.ts): a signature refused for a skewed clock is re-signed by
 *   AWS's clock and tried again;
 * - deadlines: each attempt waits at most `timeoutMs`, and no attempt starts or backoff waits past
 *   the call's deadline (the `deadline` given, else the route's, lib/core/call-deadline-scope.ts);
 * - the local runtime's grant guard sees every call (client-hooks.ts `awsCallMade`), so a grant
 *   too small fails `npm test` here, as IAM would fail it in AWS.
 *
 * Why not the SDK clients: for @connections, the client's work per call (0.70–0.94 ms of CPU per
 * post against 0.38–0.49 ms for this, 2,000 posts to a bare server on 127.0.0.1); for KMS, STS and
 * SQS's SendMessageBatch of delayed retries, their bytes in bundles with a budget (docs/cost.md, "Bundle budget").
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { SignatureV4 } from '@smithy/signature-v4';
import { currentCallDeadline } from '../core/call-deadline-scope.ts';
import { type AwsService, awsCallMade } from './client-hooks.ts';
import { sampleServerClock, skewCorrectedNow } from './clock-skew.ts';
import { Sha256 } from './node-checksums.ts';
import {
  type FailedAttempt,
  MAX_ATTEMPTS,
  RetryBudget,
  retryAfterMsOf,
  retryDelayMs,
  retryKindOf,
} from './retry-policy.ts';

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
  /** What the grant guard reads of the call (AssumeRole's session tags); the body otherwise. */
  input?: unknown;
  /** How long one attempt waits for its answer. */
  timeoutMs?: number;
  /** Epoch ms: no attempt starts, and no backoff waits, past it. */
  deadline?: number;
  /** How the signed request travels: fetch unless given (the push channel's kept-alive http, http-send.ts). */
  send?: Send;
}

/** Sends one signed request and reads its answer whole; throws only when no answer came. */
export type Send = (
  url: URL,
  init: { method: string; headers: Record<string, string>; body: string | undefined; timeoutMs: number },
) => Promise<Omit<SignedAnswer, 'attempts'>>;

export interface SignedAnswer {
  /** The last attempt's status: a success, or the error no retry fixed (each protocol reads its own). */
  status: number;
  body: string;
  headers: Record<string, string | undefined>;
  /** Attempts made (1 when the first answered). */
  attempts: number;
}

/** No answer came (the network, the timeout, the deadline) after every attempt allowed. */
export class AwsCallFailed extends Error {
  override name = 'AwsCallFailed';
}

const DEFAULT_TIMEOUT_MS = 5_000;
const budget = new RetryBudget();

/** Signers per credentials given, then per service and region, so each keeps its derived signing key. */
const signersOf = new WeakMap<Credentials, Map<string, SignatureV4>>();
/** The environment's credentials are read at each signing (fromEnv): one provider for every signer. */
const environment: Credentials = fromEnv();

/** The signer of these credentials (Lambda's environment's unless given), service and region. */
export function signerFor(service: string, region: string, credentials: Credentials = environment): SignatureV4 {
  let byScope = signersOf.get(credentials);
  if (!byScope) {
    byScope = new Map();
    signersOf.set(credentials, byScope);
  }
  const scope = `${service} ${region}`;
  let signer = byScope.get(scope);
  if (!signer) {
    signer = new SignatureV4({ service, region, sha256: Sha256, credentials });
    byScope.set(scope, signer);
  }
  return signer;
}

/**
 * AWS's answer after the SDK's retries: a success, or the error answer no retry fixed. Throws
 * AwsCallFailed when no answer came at all, and whatever the grant guard throws for a call outside
 * the function's grant (AccessDeniedException, never retried, as IAM's is final).
 */
export async function signedRequest(request: SignedRequest): Promise<SignedAnswer> {
  const { service, operation, body } = request;
  const answered = awsCallMade(service, operation, request.input ?? { url: request.url.href, body });
  const deadline = request.deadline ?? currentCallDeadline();
  let lastRetryCost: number | undefined;
  for (let attempt = 1; ; attempt++) {
    const sentAt = Date.now();
    const timeoutMs = Math.min(request.timeoutMs ?? DEFAULT_TIMEOUT_MS, (deadline ?? Infinity) - sentAt);
    if (timeoutMs <= 0) throw new AwsCallFailed(`${service} ${operation}: no time left before the deadline`);
    let failure: FailedAttempt;
    let answer: SignedAnswer | undefined;
    try {
      answer = { ...(await sendOnce(request, timeoutMs)), attempts: attempt };
      const skewCorrected = sampleServerClock(answer.headers['date'], answer.headers['age'], sentAt);
      if (answer.status < 300) {
        budget.succeeded(lastRetryCost);
        answered?.(answer.status);
        return answer;
      }
      failure = {
        name: errorCodeOf(answer),
        message: answer.body.slice(0, 200),
        $metadata: { httpStatusCode: answer.status, clockSkewCorrected: skewCorrected },
      };
    } catch (err) {
      const error = err as NodeJS.ErrnoException;
      failure = { name: error.name, message: error.message, code: error.code, cause: error.cause, $metadata: {} };
    }
    const kind = retryKindOf(failure);
    const wait =
      kind && attempt < MAX_ATTEMPTS
        ? retryDelayMs(kind, attempt - 1, retryAfterMsOf(answer?.headers['retry-after']))
        : undefined;
    const fitsDeadline = wait !== undefined && (deadline === undefined || Date.now() + wait < deadline);
    const cost = kind && fitsDeadline ? budget.take(kind) : undefined;
    if (cost === undefined) {
      if (answer) {
        answered?.(answer.status);
        return answer;
      }
      throw new AwsCallFailed(`${service} ${operation}: no answer after ${attempt} attempt(s): ${failure.message}`);
    }
    lastRetryCost = cost;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** One attempt: signed now (by AWS's clock), sent, read whole. */
async function sendOnce(request: SignedRequest, timeoutMs: number): Promise<Omit<SignedAnswer, 'attempts'>> {
  const { service, region, method, url, headers = {}, body, credentials } = request;
  const signed = await signerFor(service, region, credentials).sign(
    {
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
    },
    { signingDate: skewCorrectedNow() },
  );
  return (request.send ?? fetchSend)(url, { method, headers: signed.headers, body, timeoutMs });
}

/**
 * The rare calls' sender: Node's fetch, which no bundle pays bytes for. A dropped connection is
 * named as Node's http names it (ECONNRESET), which the SDK's classification retries; undici calls
 * it its own way.
 */
const fetchSend: Send = async (url, { method, headers, body, timeoutMs }) => {
  try {
    const res = await fetch(url, { method, headers, body: body ?? null, signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, body: await res.text(), headers: Object.fromEntries(res.headers) };
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if ((err as Error).name === 'TimeoutError' || code === undefined) throw err;
    throw Object.assign(new Error((err as Error).message), { code: code.startsWith('UND_ERR') ? 'ECONNRESET' : code });
  }
};

/**
 * The error code of an error answer, wherever its protocol puts it: API Gateway's and the JSON
 * protocol's `x-amzn-errortype` header or `__type`, the query protocol's XML `<Code>`.
 */
export function errorCodeOf(answer: Pick<SignedAnswer, 'status' | 'body' | 'headers'>): string {
  const fromHeader = answer.headers['x-amzn-errortype']?.split(':')[0];
  if (fromHeader) return fromHeader;
  let fromJson: unknown;
  try {
    const parsed = JSON.parse(answer.body) as Record<string, unknown>;
    fromJson = parsed['__type'] ?? parsed['code'] ?? parsed['Code'];
  } catch {
    // Not JSON: XML or text.
  }
  const code = typeof fromJson === 'string' ? fromJson : /<Code>([^<]*)<\/Code>/.exec(answer.body)?.[1];
  return code ? code.split('#').pop()!.split(':')[0]! : `HTTP ${answer.status}`;
}

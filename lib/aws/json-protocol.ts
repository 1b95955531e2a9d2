/**
 * One call of an AWS API that speaks the JSON protocol (a POST of JSON with `x-amz-target`), as a
 * signed request (signed-request.ts: the SDK's retries, clock-skew correction, the grant guard).
 *
 * For the functions whose bundle cannot carry a service's whole SDK client for one or two of its
 * operations (docs/cost.md, "Bundle budget"): KMS's GenerateDataKey and Decrypt (kms.ts), and the
 * delivery worker's SendMessageBatch of delayed retries (lib/events/delivery/queue.ts, `sendLater`), where `@aws-sdk/client-sqs`
 * is 24 KB of schemas and error classes for every SQS operation. Everything else uses the SDK clients.
 */
import { setting } from '../core/environment.ts';
import type { AwsService } from './client-hooks.ts';
import { type Credentials, errorCodeOf, signedRequest } from './signed-request.ts';

/** A JSON-protocol API: its signing name, its target prefix and its protocol version. */
export interface JsonApi {
  service: AwsService;
  target: string;
  version: '1.0' | '1.1';
}

export const KMS_API: JsonApi = { service: 'kms', target: 'TrentService', version: '1.1' };
export const SQS_API: JsonApi = { service: 'sqs', target: 'AmazonSQS', version: '1.0' };

export interface JsonCallOptions {
  /** An emulator or a test's server instead of `https://<service>.<region>.amazonaws.com/`. */
  endpoint?: string | undefined;
  /** Lambda's environment credentials unless given. */
  credentials?: Credentials;
  /** `AWS_REGION` unless given (a script that resolves its region from a profile). */
  region?: string;
}

/** The API's error answer (`__type`, `message`) as an error that names it. */
export class AwsApiError extends Error {
  readonly service: string;
  readonly type: string;
  constructor(service: string, type: string, message: string) {
    super(`${service.toUpperCase()} ${type}: ${message}`);
    this.service = service;
    this.type = type;
    this.name = 'AwsApiError';
  }
}

/** Answers the JSON answer of `operation`, or throws `AwsApiError` on an error answer. */
export async function callJsonApi(
  api: JsonApi,
  operation: string,
  payload: unknown,
  options: JsonCallOptions = {},
): Promise<Record<string, unknown>> {
  const region = options.region ?? setting('AWS_REGION') ?? 'us-east-1';
  const url = new URL(options.endpoint ?? `https://${api.service}.${region}.amazonaws.com/`);
  const response = await signedRequest({
    service: api.service,
    operation,
    region,
    method: 'POST',
    url,
    headers: { 'content-type': `application/x-amz-json-${api.version}`, 'x-amz-target': `${api.target}.${operation}` },
    body: JSON.stringify(payload),
    input: payload,
    credentials: options.credentials,
  });
  let answer: Record<string, unknown> = {};
  try {
    answer = JSON.parse(response.body) as Record<string, unknown>;
  } catch {
    // An error answer without a JSON body (a proxy's 502): named by its status below.
  }
  if (response.status >= 300) {
    throw new AwsApiError(api.service, errorCodeOf(response), String(answer['message'] ?? answer['Message'] ?? ''));
  }
  return answer;
}

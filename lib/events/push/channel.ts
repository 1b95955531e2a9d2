/**
 * The push channel's @connections API (API Gateway's management API of the WebSocket API): post a
 * frame to one connection. PUSH_CONNECTIONS_ENDPOINT names it (infra sets it on the functions that
 * push; the local runtime points it at its own WebSocket stand-in, local/gateway/push-gateway.ts).
 * A connection that is gone answers 410, which is an answer here, not an error: its slot is freed.
 *
 * Each call is one signed request (lib/aws/signed-request.ts), as the SDK client would send it
 * (`POST <endpoint>/@connections/<id>`, the frame as the body), without the client's work per call:
 * one post per frame and connection is the channel's most frequent call. The transport tries a
 * throttled (429) or failed (5xx, no answer) call again as the SDK's standard retries do; any
 * other answer is an error naming the API's own error type.
 */

import { emulatorCredentials } from '../../aws/emulator-credentials.ts';
import { httpSend } from '../../aws/http-send.ts';
import { signedRequest } from '../../aws/signed-request.ts';
import { setting } from '../../core/environment.ts';

/** Sends one frame; 'gone' when the connection no longer exists. */
export type PostFrame = (connectionId: string, frame: string) => Promise<'sent' | 'gone'>;
/** Closes a connection from the service's side (its $disconnect follows); a connection already gone is fine. */
export type CloseConnection = (connectionId: string) => Promise<void>;

async function callConnection(
  operation: 'PostToConnection' | 'DeleteConnection',
  connectionId: string,
  body?: string,
): Promise<number> {
  const endpoint = setting('PUSH_CONNECTIONS_ENDPOINT');
  if (!endpoint) throw new Error('PUSH_CONNECTIONS_ENDPOINT is not set');
  const { status, body: text } = await signedRequest({
    service: 'execute-api',
    operation,
    region: setting('AWS_REGION') ?? 'us-east-1',
    method: operation === 'PostToConnection' ? 'POST' : 'DELETE',
    url: new URL(`${endpoint.replace(/\/$/, '')}/@connections/${encodeURIComponent(connectionId)}`),
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/octet-stream' } }),
    credentials: emulatorCredentials(),
    send: httpSend,
  });
  if ((status >= 200 && status < 300) || status === 410) return status;
  throw new Error(`@connections ${operation}: ${status} ${errorTypeOf(text)}`);
}

/** API Gateway's error type from its answer's body (`{"message": …}`), for the error's message. */
const errorTypeOf = (text: string): string => {
  try {
    return String((JSON.parse(text) as { message?: unknown }).message ?? text);
  } catch {
    return text.slice(0, 200);
  }
};

export const postFrame: PostFrame = async (connectionId, frame) =>
  (await callConnection('PostToConnection', connectionId, frame)) === 410 ? 'gone' : 'sent';

export const closeFromServer: CloseConnection = async (connectionId) => {
  await callConnection('DeleteConnection', connectionId);
};

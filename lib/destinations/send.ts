/**
 * One message into a customer's queue or bus, with a session of the sender role tagged with the
 * destination's account (session.ts). The body is the exact JSON the signature covers:
 *
 * - SQS: the message body, the signature headers as String message attributes (a FIFO queue gets
 *   the agent as its group and the message id as its deduplication id);
 * - EventBridge: one PutEvents entry on the bus (`Source` SOURCE, `DetailType` the event kind) whose
 *   `detail` is `{"headers": {…}, "body": "<the exact JSON>"}`: EventBridge re-serializes detail
 *   objects, so the signed bytes travel as a string.
 *
 * The headers include the causing trace's `traceparent` (and `tracestate`): SQS message attributes
 * of those names, and on EventBridge in the detail's `headers` like the signature (PutEvents'
 * own TraceHeader takes only X-Ray's format). docs/webhooks.md, "Trace context".
 *
 * Locally SQS_ENDPOINT (fauxqs) and EVENTBRIDGE_ENDPOINT (a test's endpoint) stand in for AWS.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { setting } from '../core/environment.ts';
import { type DestinationArn, queueUrlOf } from './arn.ts';
import { ClientCache } from './client-cache.ts';
import { type SessionCredentials, sessionFor } from './session.ts';

export const SOURCE = 'template-marketplace';

export interface OutgoingMessage {
  /** Event id, or the verification message's own id: the SQS deduplication id and the signature's id. */
  id: string;
  /** The event kind (EventBridge's detail-type). */
  type: string;
  body: string;
  headers: Record<string, string>;
  /** The agent (a FIFO queue's message group). */
  groupId: string;
}

export type SendResult =
  | { ok: true; statusCode: number; receipt: string }
  | { ok: false; statusCode: number | null; kind: 'access_denied' | 'aws_error' | 'network'; message: string };

const ACCESS_DENIED = /AccessDenied|not authorized|AuthorizationError|KMS\.AccessDenied/i;
const TIMEOUT_MS = 10_000;
/** One worker instance sends for at most this many (account, region, service) at once before the oldest client goes. */
const KEPT_CLIENTS = 50;
const queues = new ClientCache<SQSClient>(KEPT_CLIENTS);
const buses = new ClientCache<EventBridgeClient>(KEPT_CLIENTS);
/** A session's access key id is its own (STS issues one per AssumeRole); locally the account tells them apart. */
const clientKey = (region: string, accountId: string, session: SessionCredentials, endpoint: string | undefined) =>
  `${region} ${accountId} ${session.accessKeyId} ${endpoint ?? ''}`;

export async function sendToDestination(
  destination: DestinationArn,
  accountId: string,
  message: OutgoingMessage,
): Promise<SendResult> {
  try {
    const credentials = await sessionFor(accountId);
    return destination.kind === 'sqs'
      ? await sendToQueue(destination, accountId, credentials, message)
      : await putOnBus(destination, accountId, credentials, message);
  } catch (err) {
    return failure(err);
  }
}

const clientSettings = (region: string, session: SessionCredentials, endpoint?: string) => ({
  region: endpoint ? (setting('AWS_REGION') ?? region) : region,
  credentials: {
    accessKeyId: session.accessKeyId,
    secretAccessKey: session.secretAccessKey,
    sessionToken: session.sessionToken,
    expiration: new Date(session.expiration),
  },
  maxAttempts: 2,
  requestHandler: { requestTimeout: TIMEOUT_MS, connectionTimeout: TIMEOUT_MS },
  ...(endpoint ? { endpoint } : {}),
});

async function sendToQueue(
  destination: DestinationArn,
  accountId: string,
  credentials: SessionCredentials,
  message: OutgoingMessage,
): Promise<SendResult> {
  const endpoint = setting('SQS_ENDPOINT');
  const client = queues.get(
    clientKey(destination.region, accountId, credentials, endpoint),
    credentials.expiration,
    () => new SQSClient(clientSettings(destination.region, credentials, endpoint)),
  );
  const fifo = destination.name.endsWith('.fifo');
  const answer = await client.send(
    new SendMessageCommand({
      QueueUrl: queueUrlOf(destination, endpoint),
      MessageBody: message.body,
      MessageAttributes: Object.fromEntries(
        Object.entries(message.headers).map(([name, value]) => [name, { DataType: 'String', StringValue: value }]),
      ),
      ...(fifo ? { MessageGroupId: message.groupId, MessageDeduplicationId: message.id } : {}),
    }),
  );
  return { ok: true, statusCode: answer.$metadata.httpStatusCode ?? 200, receipt: `MessageId ${answer.MessageId}` };
}

async function putOnBus(
  destination: DestinationArn,
  accountId: string,
  credentials: SessionCredentials,
  message: OutgoingMessage,
): Promise<SendResult> {
  const endpoint = setting('EVENTBRIDGE_ENDPOINT');
  const client = buses.get(
    clientKey(destination.region, accountId, credentials, endpoint),
    credentials.expiration,
    () => new EventBridgeClient(clientSettings(destination.region, credentials, endpoint)),
  );
  const answer = await client.send(
    new PutEventsCommand({
      Entries: [
        {
          EventBusName: destination.arn,
          Source: SOURCE,
          DetailType: message.type,
          Detail: JSON.stringify({ headers: message.headers, body: message.body }),
        },
      ],
    }),
  );
  const entry = answer.Entries?.[0];
  if ((answer.FailedEntryCount ?? 0) > 0 || !entry?.EventId)
    return {
      ok: false,
      statusCode: answer.$metadata.httpStatusCode ?? null,
      kind: ACCESS_DENIED.test(entry?.ErrorCode ?? '') ? 'access_denied' : 'aws_error',
      message: `${entry?.ErrorCode ?? 'FailedEntry'}: ${entry?.ErrorMessage ?? 'the entry was not put'}`,
    };
  return { ok: true, statusCode: answer.$metadata.httpStatusCode ?? 200, receipt: `EventId ${entry.EventId}` };
}

function failure(err: unknown): SendResult {
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const statusCode = e.$metadata?.httpStatusCode ?? null;
  const text = `${e.name ?? 'Error'}: ${e.message ?? String(err)}`.slice(0, 300);
  const kind = ACCESS_DENIED.test(text) ? 'access_denied' : statusCode === null ? 'network' : 'aws_error';
  return { ok: false, statusCode, kind, message: text };
}

/**
 * The delivery queue. A message names one delivery record; the record, not the message, holds the
 * state, so a message can be duplicated or replayed without harm. SQS_ENDPOINT points the client
 * at fauxqs locally; in AWS it is unset.
 */
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { awsClientMade } from '../../aws/client-hooks.ts';
import { callJsonApi, SQS_API } from '../../aws/json-protocol.ts';
import { withoutSdkLogger } from '../../aws/no-sdk-logger.ts';
import { emulatorJsonCall, endpointOverride } from '../../aws-endpoint.ts';
import { setting } from '../../core/environment.ts';
import { errorFields, log } from '../../observability/log.ts';
import { isWaits } from './hold.ts';

export interface DeliveryMessage {
  agent_id: string;
  delivery_id: string;
  event_id: string;
  /** A manual retry: one extra attempt now, outside the schedule (docs/webhooks.md). */
  manual?: true;
  /** With `manual`: sent even though the delivery already succeeded. */
  force?: true;
  /** A later attempt further off than one delayed send (ms): the message hops again until then (`sendLater`). */
  not_before?: number;
  /** Times it was held without an attempt since its last one: its next hold is longer (hold.ts). */
  waits?: number;
}

/** A message as the queue hands it over (an SQS event record or a ReceiveMessage result). */
export interface ReceivedMessage {
  messageId: string;
  body: string;
  receiptHandle: string;
}

let client: SQSClient | undefined;
let clientEndpoint: string | undefined;

export function sqs(): SQSClient {
  const endpoint = setting('SQS_ENDPOINT');
  if (!client || clientEndpoint !== endpoint) {
    client = withoutSdkLogger(new SQSClient(endpointOverride(endpoint)));
    awsClientMade(client, 'sqs');
    clientEndpoint = endpoint;
  }
  return client;
}

/** A queue's URL from its variable (this queue's, or the destinations' queue of destination-queue.ts). */
export function queueUrlSetting(name: 'DELIVERY_QUEUE_URL' | 'DESTINATION_QUEUE_URL'): string {
  const url = setting(name);
  if (!url) throw new Error(`${name} is not set`);
  return url;
}

export const deliveryQueueUrl = (): string => queueUrlSetting('DELIVERY_QUEUE_URL');

/**
 * The message group of a delivery message: its agent (one webhook per agent). On a standard queue
 * this makes it an SQS fair queue: when one agent's messages pile up, SQS hands the other groups'
 * messages out first, so a dead endpoint's backlog does not delay other tenants (docs/events.md,
 * "Tenants apart"). Ordering stays the standard queue's (none); no FIFO limits apply.
 */
export const messageGroupOf = (message: { agent_id: string }): string => message.agent_id;

export async function enqueueDelivery(message: DeliveryMessage): Promise<void> {
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: deliveryQueueUrl(),
      MessageBody: JSON.stringify(message),
      MessageGroupId: messageGroupOf(message),
    }),
  );
}

/** SendMessageBatch's limit. */
const SEND_BATCH = 10;

/** The indexes 0 … length − 1 in groups of `size`. */
const inGroupsOf = (size: number, length: number): number[][] =>
  Array.from({ length: Math.ceil(length / size) }, (_, g) =>
    Array.from({ length: Math.min(size, length - g * size) }, (_, j) => g * size + j),
  );

/**
 * Sends in batches of 10. Returns the indexes (into `messages`) that were not sent, with the
 * reason; a batch call that fails as a whole counts every message of it.
 */
export async function enqueueDeliveries(
  messages: readonly DeliveryMessage[],
): Promise<{ failed: number[]; errors: Map<number, string> }> {
  const failed: number[] = [];
  const errors = new Map<number, string>();
  await Promise.all(
    inGroupsOf(SEND_BATCH, messages.length).map(async (group) => {
      try {
        const { Failed = [] } = await sqs().send(
          new SendMessageBatchCommand({
            QueueUrl: deliveryQueueUrl(),
            Entries: group.map((index) => ({
              Id: String(index),
              MessageBody: JSON.stringify(messages[index]),
              MessageGroupId: messageGroupOf(messages[index]!),
            })),
          }),
        );
        for (const entry of Failed) {
          failed.push(Number(entry.Id));
          errors.set(Number(entry.Id), `${entry.Code ?? 'error'}: ${entry.Message ?? ''}`);
        }
      } catch (err) {
        for (const index of group) {
          failed.push(index);
          errors.set(index, err instanceof Error ? err.message : String(err));
        }
      }
    }),
  );
  return { failed, errors };
}

/** SQS's longest DelaySeconds. */
export const MAX_SEND_DELAY_SECONDS = 900;

/** A message's next attempt, `seconds` from now. */
export interface LaterSend<M> {
  message: M;
  seconds: number;
}

/**
 * Schedules received messages' next attempts outside the queue's in-flight count (docs/events.md,
 * "Retries"): each message sent again with a delay, in SendMessageBatch calls of 10, after which the
 * caller lets the received copies be deleted. A wait longer than SQS's 15-minute delay hops: the
 * copy carries `not_before` and the worker sends it on, unread, until it is due, so no message is
 * ever held invisible for hours and every receive of a copy is for a real attempt or a hop (each
 * copy starts its receive count at 0, so a long wait can never send it to the DLQ). `queueUrl`: the
 * destinations' queue. Answers the indexes (into `sends`) not sent: those received copies are kept
 * and come back after the queue's visibility timeout, find their attempt not yet due and send again.
 *
 * Signed JSON calls, not the SDK client: the webhook worker's only SQS call, and the client would be
 * 24 KB of that bundle (lib/aws/json-protocol.ts).
 */
export async function sendLater<M extends { agent_id: string; not_before?: number }>(
  sends: readonly LaterSend<M>[],
  nowMs: number,
  queueUrl = deliveryQueueUrl(),
): Promise<Set<number>> {
  const failed = new Set<number>();
  await Promise.all(
    inGroupsOf(SEND_BATCH, sends.length).map(async (group) => {
      // Member order of the SDK's requests, so each call is the SDK's byte for byte.
      const entries = group.map((index) => {
        const { message, seconds } = sends[index]!;
        const wait = Math.max(0, Math.ceil(seconds));
        const delay = Math.min(wait, MAX_SEND_DELAY_SECONDS);
        const { not_before: _previous, ...rest } = message;
        const body = wait > delay ? { ...rest, not_before: nowMs + wait * 1000 } : rest;
        return {
          Id: String(index),
          MessageBody: JSON.stringify(body),
          DelaySeconds: delay,
          MessageGroupId: messageGroupOf(message),
        };
      });
      try {
        const answer = await callJsonApi(
          SQS_API,
          'SendMessageBatch',
          { QueueUrl: queueUrl, Entries: entries },
          emulatorJsonCall(setting('SQS_ENDPOINT')),
        );
        for (const entry of (answer['Failed'] ?? []) as Array<{ Id: string }>) failed.add(Number(entry.Id));
      } catch (err) {
        log.error('delivery: delayed copies not sent (their messages stay in the queue)', {
          copies: group.length,
          ...errorFields(err),
        });
        for (const index of group) failed.add(index);
      }
    }),
  );
  return failed;
}

/**
 * A batch's `later` outcomes (attempt-gate.ts) sent as delayed copies, in as few calls as
 * `sendLater` makes; the indexes (into the batch) whose copy was not sent, to keep in the queue.
 */
export async function sendLaterAll(
  messages: readonly (DeliveryMessage | undefined)[],
  outcomes: readonly ({ kind: string; seconds?: number; held?: true } | 'error')[],
  nowMs: number,
): Promise<Set<number>> {
  const at: number[] = [];
  const sends: LaterSend<DeliveryMessage>[] = [];
  outcomes.forEach((outcome, i) => {
    const message = messages[i];
    if (outcome === 'error' || outcome.kind !== 'later' || !message) return;
    at.push(i);
    // A hold counts toward the next one's length; an attempt starts the count afresh.
    const { waits, ...rest } = message;
    const copy = outcome.held ? { ...rest, waits: (waits ?? 0) + 1 } : rest;
    sends.push({ message: copy, seconds: outcome.seconds ?? 0 });
  });
  if (sends.length === 0) return new Set();
  const unsent = await sendLater(sends, nowMs);
  return new Set([...unsent].map((j) => at[j]!));
}

/** Seconds until a hopping message's attempt is due, or undefined when it is due (or carries no time). */
export function hopSecondsLeft(message: { not_before?: number }, nowMs: number): number | undefined {
  const left = (message.not_before ?? 0) - nowMs;
  return left > 1000 ? Math.ceil(left / 1000) : undefined;
}

/** `not_before` of a message: absent, or a time in ms. */
export const isHopTime = (value: unknown): boolean =>
  value === undefined || (Number.isSafeInteger(value) && (value as number) > 0);

/** Strict reading of a message body: anything else is a poison message for the DLQ. */
export function parseDeliveryMessage(body: string): DeliveryMessage | undefined {
  try {
    const value = JSON.parse(body) as Record<string, unknown>;
    const { agent_id, delivery_id, event_id, manual, force, not_before, waits } = value;
    const flagsValid =
      [manual, force].every((v) => v === undefined || v === true) && (force === undefined || manual === true);
    if (
      flagsValid &&
      isHopTime(not_before) &&
      isWaits(waits) &&
      [agent_id, delivery_id, event_id].every((v) => typeof v === 'string' && /^[a-z]{3}_[0-9A-Za-z]{10,60}$/.test(v))
    ) {
      return {
        agent_id,
        delivery_id,
        event_id,
        ...(manual ? { manual: true } : {}),
        ...(force ? { force: true } : {}),
        ...(not_before === undefined ? {} : { not_before }),
        ...(waits === undefined ? {} : { waits }),
      } as DeliveryMessage;
    }
  } catch {
    // falls through: not JSON
  }
  return undefined;
}

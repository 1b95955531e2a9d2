/**
 * The destinations' queue (DESTINATION_QUEUE_URL): deliveries to customers' AWS destinations and
 * their verification messages, consumed by their own worker (functions/workers/deliver-to-destinations.ts)
 * so the webhook worker's bundle carries no EventBridge client (docs/cost.md). Like the delivery
 * queue, a message names a record and the record holds the state.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { ID_PATTERN } from '../../core/ids.ts';
import { isHopTime, type LaterSend, messageGroupOf, queueUrlSetting, sendLater, sqs } from './queue.ts';

export type DestinationMessage =
  /**
   * Send a new verification code (lib/destinations/verification.ts) for the ask `requested_at`
   * (lib/destinations/store.ts); a message queued before asks were stamped has none, and is dropped.
   */
  | { agent_id: string; destination_id: string; verify: true; requested_at?: number }
  /** An attempt of a delivery record, as the webhook queue's messages (`manual`/`force`: a manual retry). */
  | {
      agent_id: string;
      destination_id: string;
      delivery_id: string;
      event_id: string;
      manual?: true;
      force?: true;
      /** A later attempt further off than one delayed send (queue.ts, `sendLater`). */
      not_before?: number;
    };

export const destinationQueueUrl = (): string => queueUrlSetting('DESTINATION_QUEUE_URL');

export async function enqueueForDestination(message: DestinationMessage): Promise<void> {
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: destinationQueueUrl(),
      MessageBody: JSON.stringify(message),
      MessageGroupId: messageGroupOf(message),
    }),
  );
}

/** Received attempts' next ones, sent later (queue.ts, `sendLater`): nothing waits in flight. The indexes not sent. */
export const sendLaterForDestination = (
  sends: readonly LaterSend<Extract<DestinationMessage, { delivery_id: string }>>[],
  nowMs: number,
): Promise<Set<number>> =>
  sends.length === 0 ? Promise.resolve(new Set()) : sendLater(sends, nowMs, destinationQueueUrl());

const ids = (value: Record<string, unknown>, names: Array<[string, RegExp]>) =>
  names.every(([name, pattern]) => typeof value[name] === 'string' && pattern.test(value[name] as string));

/** Strict reading of a body: anything else is poison for the DLQ. */
export function parseDestinationMessage(body: string): DestinationMessage | undefined {
  try {
    const value = JSON.parse(body) as Record<string, unknown>;
    const base: Array<[string, RegExp]> = [
      ['agent_id', ID_PATTERN.agt],
      ['destination_id', ID_PATTERN.dst],
    ];
    const keys = Object.keys(value).sort().join(',');
    const requestedAt = value['requested_at'];
    if (
      (keys === 'agent_id,destination_id,verify' ||
        (keys === 'agent_id,destination_id,requested_at,verify' &&
          Number.isSafeInteger(requestedAt) &&
          (requestedAt as number) >= 0)) &&
      value['verify'] === true &&
      ids(value, base)
    )
      return {
        agent_id: value['agent_id'],
        destination_id: value['destination_id'],
        verify: true,
        ...(requestedAt === undefined ? {} : { requested_at: requestedAt }),
      } as DestinationMessage;
    const flagsValid =
      [value['manual'], value['force']].every((v) => v === undefined || v === true) &&
      (value['force'] === undefined || value['manual'] === true);
    const known = new Set(['agent_id', 'destination_id', 'delivery_id', 'event_id', 'manual', 'force', 'not_before']);
    if (
      flagsValid &&
      isHopTime(value['not_before']) &&
      Object.keys(value).every((k) => known.has(k)) &&
      ids(value, [...base, ['delivery_id', ID_PATTERN.dlv], ['event_id', ID_PATTERN.evt]])
    )
      return value as DestinationMessage;
  } catch {
    // falls through: not JSON
  }
  return undefined;
}

/**
 * Two behaviours of SQS standard queues that fauxqs 2.4.1 (the newest) does not have, and that the
 * delivery design leans on (docs/events.md, "Tenants apart"), added to its queues:
 *
 * - **The in-flight limit.** AWS holds about 120,000 in-flight messages (received, not yet deleted
 *   or visible again) per standard queue; a ReceiveMessage past it fails with `OverLimit`, for every
 *   consumer. Here the limit is SQS_IN_FLIGHT_LIMIT (scaled down, 1,200 by default), read at every
 *   receive, and a receive returns at most the room left under it.
 * - **Fair queues** (AWS, 2025): on a standard queue whose messages carry a `MessageGroupId`, a group
 *   with many messages in flight or waiting does not crowd the others out: SQS hands out the other
 *   groups' messages first. Emulated: each receive takes, round-robin, from the groups with the
 *   fewest messages in flight, oldest first within a group. fauxqs drops `MessageGroupId` on a
 *   standard queue, so a message's group is read from its body's `agent_id`, which is what every
 *   delivery send names as its group (lib/events/delivery/queue.ts, `messageGroupOf`); a message
 *   without one is a group of its own.
 *
 * fauxqs exports no queue class, so its module is reached by its file: pinned to 2.4.1 in
 * package.json, and test/local/sqs-fair-queue.test.ts fails if an upgrade moves it.
 */
import { setting } from '../../lib/core/environment.ts';

interface FauxqsMessage {
  messageId: string;
  body: string;
  messageGroupId?: string;
}

interface FauxqsQueue {
  messages: FauxqsMessage[];
  inflightMessages: Map<string, { message: FauxqsMessage }>;
  isFifo(): boolean;
  processTimers(): void;
  dequeue(maxCount: number, visibilityTimeout: number | undefined, dlqResolver: unknown): unknown[];
}

type SqsErrorClass = new (code: string, message: string, statusCode?: number, senderFault?: boolean) => Error;

let installed: Promise<void> | undefined;

const groups = new WeakMap<FauxqsMessage, string>();

/** A message's group: its MessageGroupId, or its body's `agent_id`, or itself (read once a message). */
export function groupOf(message: FauxqsMessage): string {
  const known = groups.get(message);
  if (known !== undefined) return known;
  let group = message.messageGroupId ?? message.messageId;
  if (!message.messageGroupId) {
    try {
      const agent = (JSON.parse(message.body) as { agent_id?: unknown }).agent_id;
      if (typeof agent === 'string') group = agent;
    } catch {
      // not JSON: a group of its own
    }
  }
  groups.set(message, group);
  return group;
}

/**
 * The ready messages in the order a fair receive of `count` takes them: round-robin over the
 * groups, fewest in flight first, oldest first within a group. Only the first `count` matter.
 */
export function fairOrder(
  ready: readonly FauxqsMessage[],
  inFlight: Map<string, number>,
  count: number,
): FauxqsMessage[] {
  const byGroup = new Map<string, FauxqsMessage[]>();
  for (const message of ready) {
    const group = groupOf(message);
    const queue = byGroup.get(group);
    if (!queue) byGroup.set(group, [message]);
    else if (queue.length < count) queue.push(message);
  }
  const load = new Map([...byGroup.keys()].map((g) => [g, inFlight.get(g) ?? 0]));
  const chosen: FauxqsMessage[] = [];
  while (chosen.length < count && byGroup.size > 0) {
    let best = '';
    let least = Number.POSITIVE_INFINITY;
    for (const [group, n] of load)
      if (n < least) {
        best = group;
        least = n;
      }
    const queue = byGroup.get(best)!;
    chosen.push(queue.shift()!);
    load.set(best, least + 1);
    if (queue.length === 0) {
      byGroup.delete(best);
      load.delete(best);
    }
  }
  return chosen;
}

/** Adds both to every fauxqs standard queue of this process (once; the limit is read at each receive). */
export function installFairQueueAndInFlightLimit(): Promise<void> {
  installed ??= (async () => {
    const entry = import.meta.resolve('fauxqs');
    const { SqsQueue } = (await import(new URL('./sqs/sqsStore.js', entry).href)) as {
      SqsQueue: { prototype: FauxqsQueue };
    };
    const { SqsError } = (await import(new URL('./common/errors.js', entry).href)) as { SqsError: SqsErrorClass };
    const dequeue = SqsQueue.prototype.dequeue;
    SqsQueue.prototype.dequeue = function (this: FauxqsQueue, maxCount, visibilityTimeout, dlqResolver) {
      if (this.isFifo()) return dequeue.call(this, maxCount, visibilityTimeout, dlqResolver);
      this.processTimers();
      const room = setting('SQS_IN_FLIGHT_LIMIT') - this.inflightMessages.size;
      if (room <= 0)
        throw new SqsError(
          'OverLimit',
          `The queue holds its limit of ${setting('SQS_IN_FLIGHT_LIMIT')} in-flight messages (SQS_IN_FLIGHT_LIMIT).`,
          403,
        );
      const count = Math.min(maxCount, room);
      const inFlight = new Map<string, number>();
      for (const { message } of this.inflightMessages.values()) {
        const group = groupOf(message);
        inFlight.set(group, (inFlight.get(group) ?? 0) + 1);
      }
      const chosen = fairOrder(this.messages, inFlight, count);
      const taken = new Set(chosen);
      // fauxqs's own dequeue takes from the front: the fair choice goes there, the rest keep their order.
      this.messages = [...chosen, ...this.messages.filter((m) => !taken.has(m))];
      return dequeue.call(this, count, visibilityTimeout, dlqResolver);
    };
  })();
  return installed;
}

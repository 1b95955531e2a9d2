import { log } from '../log.ts';
import { postJson, type OutboundResult } from '../net/outbound.ts';
import { signingSecrets } from '../webhooks/rotation.ts';
import { signatureHeaders } from '../webhooks/signature.ts';
import { acceptsDelivery, readAgent } from './agents.ts';
import { abandonDelivery, claimDelivery, recordAttempt, type AttemptResult } from './delivery-lease.ts';
import { readEvent } from './feed.ts';
import { parseDeliveryMessage, postpone, type ReceivedMessage } from './queue.ts';
import type { ServiceEvent } from './types.ts';
import { failureKindOf, recordDeliveryAttempt } from '../observability/metrics.ts';

/**
 * One delivery message: take the record's lease, re-check the webhook (it may have been disabled
 * or unsubscribed since the relay ran), sign, post, record the attempt. The retry schedule is
 * carried by the message itself: a failed attempt leaves it in the queue, invisible until the
 * next attempt is due.
 */
export type Outcome = { kind: 'done' } | { kind: 'later'; seconds: number } | { kind: 'poison' };

/** The delivery request of docs/api.md: the event object as the body, signed over its exact bytes (both signature schemes). */
export function deliveryRequest(event: ServiceEvent, secrets: string | readonly string[], now = new Date()): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event);
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      'X-Service-Event': event.type,
      'x-service-event-id': event.id,
      ...signatureHeaders(secrets, body, event.id, now),
    },
  };
}

export function attemptResult(result: OutboundResult): AttemptResult {
  switch (result.kind) {
    case 'response':
      return result.status >= 200 && result.status < 300
        ? { ok: true, statusCode: result.status }
        : { ok: false, statusCode: result.status, error: `endpoint answered HTTP ${result.status}` };
    case 'timeout':
      return { ok: false, statusCode: null, error: 'no answer within 10 seconds' };
    case 'blocked':
      return { ok: false, statusCode: null, error: `URL refused: ${result.reason}` };
    case 'network_error':
      return { ok: false, statusCode: null, error: `network error: ${result.message}` };
  }
}

export async function deliverMessage(record: Pick<ReceivedMessage, 'messageId' | 'body'>): Promise<Outcome> {
  const message = parseDeliveryMessage(record.body);
  if (!message) return { kind: 'poison' };
  const claim = await claimDelivery(message.agent_id, message.delivery_id, record.messageId);
  if (claim.kind === 'drop') return { kind: 'done' };
  if (claim.kind === 'busy') return { kind: 'later', seconds: claim.retryInSeconds };

  const [agent, event] = await Promise.all([readAgent(message.agent_id), readEvent(message.agent_id, message.event_id)]);
  if (!acceptsDelivery(agent, claim.record.event_type) || !agent.webhook_secret) {
    await abandonDelivery(claim, 'webhook not enabled or not subscribed to this event type when the attempt was due');
    return { kind: 'done' };
  }
  if (!event) {
    await abandonDelivery(claim, 'event expired');
    return { kind: 'done' };
  }
  const request = deliveryRequest(event, signingSecrets(agent.webhook_secret, agent));
  const started = Date.now();
  const answer = await postJson({ url: agent.webhook_url, ...request });
  const result = attemptResult(answer);
  recordDeliveryAttempt(result.ok ? { ok: true, latencyMs: Date.now() - started } : { ok: false, kind: failureKindOf(answer), latencyMs: Date.now() - started });
  const settled = await recordAttempt(claim, result);
  // The record keeps the count and the last outcome; the log keeps every attempt.
  log.info('delivery attempt', {
    deliveryId: claim.record.id,
    eventId: event.id,
    agentId: event.agent_id,
    attempt: claim.record.attempts + 1,
    statusCode: result.statusCode,
    error: result.ok ? undefined : result.error,
    ms: Date.now() - started,
    outcome: settled?.status ?? 'lease lost',
  });
  if (settled?.retryInSeconds !== undefined) return { kind: 'later', seconds: settled.retryInSeconds };
  return { kind: 'done' };
}

/**
 * A batch from the queue → the ids of the messages to keep (due again later, failed, or poison for
 * the DLQ); the others are done and may be deleted.
 */
export async function deliverBatch(records: readonly ReceivedMessage[]): Promise<string[]> {
  const outcomes = await Promise.all(
    records.map(async (record): Promise<Outcome | 'error'> => {
      try {
        const outcome = await deliverMessage(record);
        if (outcome.kind === 'later') await postpone(record.receiptHandle, outcome.seconds);
        return outcome;
      } catch (err) {
        // Left in the queue: it comes back after the queue's visibility timeout.
        log.error('deliver: message failed', { messageId: record.messageId, error: err instanceof Error ? err.message : String(err) });
        return 'error';
      }
    }),
  );
  const failed = records.filter((record, i) => {
    const outcome = outcomes[i]!;
    if (outcome !== 'error' && outcome.kind === 'poison') log.warn('deliver: unreadable message left for the DLQ', { messageId: record.messageId });
    return outcome === 'error' || outcome.kind !== 'done';
  });
  return failed.map((r) => r.messageId);
}

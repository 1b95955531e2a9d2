import { createHash, type KeyObject } from 'node:crypto';
import { type TraceContext, traceHeaders } from '../../core/trace-context.ts';
import { signatureHeaders } from '../../webhooks/signature.ts';
import type { ServiceEvent } from '../feed/event.ts';

/** What an attempt adds to the signed request: the endpoint's custom headers and the event's trace. */
export interface RequestExtras {
  /** The endpoint's custom headers, secret ones unsealed (lib/webhooks/custom-headers.ts); never logged. */
  headers?: Readonly<Record<string, string>>;
  /** The trace of the request that caused the event (the delivery record's). */
  trace?: TraceContext;
}

/**
 * A record made without a trace (before traces were kept, or by a replay) still sends one: a trace
 * id of its own event's, so all its attempts join one trace (sampled: the receiver decides).
 */
const eventTrace = (eventId: string): TraceContext => {
  const hash = createHash('sha256').update(eventId).digest('hex');
  return { traceparent: `00-${hash.slice(0, 32)}-${hash.slice(32, 48)}-01` };
};

/**
 * The delivery request of docs/api.md: the event object as the body, signed over its exact bytes
 * (both signature schemes), with the endpoint's custom headers and a `traceparent` of the causing
 * trace with a new span id (each call is one attempt). The service's own headers win over custom
 * ones (whose names cannot be theirs anyway).
 */
export function deliveryRequest(
  event: ServiceEvent,
  secrets: string | readonly string[],
  now = new Date(),
  ed25519Keys: readonly KeyObject[] = [],
  extras: RequestExtras = {},
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event);
  return {
    body,
    headers: {
      ...extras.headers,
      ...traceHeaders(extras.trace ?? eventTrace(event.id)),
      'Content-Type': 'application/json',
      'X-Service-Event': event.type,
      'x-service-event-id': event.id,
      ...signatureHeaders(secrets, body, event.id, now, ed25519Keys),
    },
  };
}

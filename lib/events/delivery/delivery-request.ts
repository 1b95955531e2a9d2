import type { KeyObject } from 'node:crypto';
import { signatureHeaders } from '../../webhooks/signature.ts';
import type { ServiceEvent } from '../feed/event.ts';

/** The delivery request of docs/api.md: the event object as the body, signed over its exact bytes (both signature schemes). */
export function deliveryRequest(
  event: ServiceEvent,
  secrets: string | readonly string[],
  now = new Date(),
  ed25519Keys: readonly KeyObject[] = [],
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event);
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      'X-Service-Event': event.type,
      'x-service-event-id': event.id,
      ...signatureHeaders(secrets, body, event.id, now, ed25519Keys),
    },
  };
}

/**
 * The verification message (docs/webhooks.md, "AWS destinations"): the delivery worker makes a new
 * code, keeps its hash on the item, then sends the code into the queue or bus, signed like a
 * delivery. Whoever posts it back (POST …/destinations/{destination_id}/verify) has shown they can
 * read the destination. A send the customer's policy refuses is kept as `verification_error`.
 *
 * One message per ask (`verification_requested_at`, taken at most once a minute by a conditional
 * write: store.ts, askForVerification), and only for the destination's latest ask: the write that
 * stores the code is conditional on both, so a message the queue hands out twice, or an older
 * ask's message arriving late, sends nothing.
 */
import { DESTINATIONS } from '../core/settings.ts';
import { nowIso } from '../core/time.ts';
import { errorFields, log } from '../observability/log.ts';
import { signatureHeaders } from '../webhooks/signature.ts';
import { parseDestinationArn } from './arn.ts';
import type { DestinationRecord } from './model.ts';
import { sendToDestination } from './send.ts';
import { updateDestination } from './store.ts';
import { codeHash, newVerificationCode } from './verification-code.ts';

export const VERIFY_EVENT_TYPE = 'service.destination.verify';

export async function sendVerification(
  destination: DestinationRecord,
  requestedAt: number | undefined,
  nowMs = Date.now(),
): Promise<'sent' | 'failed' | 'skipped'> {
  if (destination.status === 'ENABLED') return 'skipped';
  if (requestedAt === undefined) {
    // Queued before asks were stamped: the destination records no ask, so its owner's next verify call asks at once.
    log.warn('destination verification request without its ask dropped', { destinationId: destination.id });
    return 'skipped';
  }
  const arn = parseDestinationArn(destination.arn, undefined);
  if (!arn.ok) return 'skipped'; // checked when it was registered; an ARN cannot change
  const code = newVerificationCode();
  const hash = codeHash(code);
  const expiresAt = nowMs + DESTINATIONS.codeTtlSeconds * 1000;
  const stored = await updateDestination(destination.agent_id, destination.id, {
    set: {
      code_hash: hash,
      code_expires_at: expiresAt,
      wrong_codes: 0,
      verification_sent_at: new Date(nowMs).toISOString(),
      verification_error: null,
      verification_sent_for: requestedAt,
      updated_at: nowIso(),
    },
    condition:
      '#st <> :enabled AND verification_requested_at = :ask AND (attribute_not_exists(verification_sent_for) OR verification_sent_for <> :ask)',
    values: { ':enabled': 'ENABLED', ':ask': requestedAt },
    names: { '#st': 'status' },
  });
  if (!stored.ok) return 'skipped';
  const id = `${destination.id}.${nowMs}`;
  const body = JSON.stringify({
    type: VERIFY_EVENT_TYPE,
    id,
    agent_id: destination.agent_id,
    destination_id: destination.id,
    code,
    expires_at: new Date(expiresAt).toISOString(),
    instructions: `POST /api/v1/agents/${destination.agent_id}/destinations/${destination.id}/verify with {"code": "<code>"}`,
  });
  const headers = {
    'x-service-event': VERIFY_EVENT_TYPE,
    ...signatureHeaders(destination.signing_secret, body, id, new Date(nowMs)),
  };
  const result = await sendToDestination(arn.value, destination.owner_id, {
    id,
    type: VERIFY_EVENT_TYPE,
    body,
    headers,
    groupId: destination.agent_id,
  });
  if (result.ok) return 'sent';
  log.warn('destination verification not sent', {
    destinationId: destination.id,
    agentId: destination.agent_id,
    error: result.message,
  });
  await updateDestination(destination.agent_id, destination.id, {
    set: { verification_error: result.message, updated_at: nowIso() },
    remove: ['code_hash', 'code_expires_at'],
    condition: 'code_hash = :hash',
    values: { ':hash': hash },
  }).catch((err: unknown) =>
    log.error('destination verification error not recorded', { destinationId: destination.id, ...errorFields(err) }),
  );
  return 'failed';
}

/**
 * The verification message (docs/webhooks.md, "AWS destinations"): the delivery worker makes a new
 * code, keeps its hash on the item, then sends the code into the queue or bus, signed like a
 * delivery. Whoever posts it back (POST …/destinations/{destination_id}/verify) has shown they can
 * read the destination. A send the customer's policy refuses is kept as `verification_error`.
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
  nowMs = Date.now(),
): Promise<'sent' | 'failed' | 'skipped'> {
  if (destination.status === 'ENABLED') return 'skipped';
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
      updated_at: nowIso(),
    },
    condition: '#st <> :enabled',
    values: { ':enabled': 'ENABLED' },
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

/**
 * The destination routes (docs/api.md, docs/webhooks.md "AWS destinations"), for the agent's owner
 * only: anyone else's agent or destination is the same 404 as a missing one. Registering checks the
 * ARN (lib/destinations/arn.ts), stores the destination PENDING_VERIFICATION with a request for its
 * verification message (the relay queues it); posting the message's code back makes it ENABLED.
 */
import { ownAgent } from '../agents/agents.ts';
import type { AgentRecord } from '../agents/model.ts';
import type { Caller } from '../core/caller.ts';
import { setting } from '../core/environment.ts';
import { AppError, notFound, rateLimited, validationError } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import { DESTINATION_REGISTRATION_LIMITS, DESTINATIONS } from '../core/settings.ts';
import { nowIso } from '../core/time.ts';
import type { CreatedDestinationAnswer, DestinationAnswer } from '../destinations/answer.ts';
import { parseDestinationArn } from '../destinations/arn.ts';
import type { CreateDestinationInput } from '../destinations/create-body.ts';
import type { DestinationRecord } from '../destinations/model.ts';
import { keyPolicyStatement, resourcePolicy } from '../destinations/policy.ts';
import {
  askForVerification,
  deleteDestinationItem,
  insertDestination,
  listDestinationsOf,
  nextVerificationAskAt,
  readDestination,
  updateDestination,
  updateDestinationAlong,
} from '../destinations/store.ts';
import { codeHash, codeMatches } from '../destinations/verification-code.ts';
import { neverMatches } from '../filters/never-matches.ts';
import { takeWindowSlot } from '../limits/window-limit.ts';
import { destinationKeys, ENTITY } from '../store/keys.ts';
import type { CommitAlong } from '../store/transact.ts';
import { newWebhookSecret } from '../webhooks/secret.ts';

export function toDestinationView(d: DestinationRecord): DestinationAnswer {
  return {
    id: d.id,
    agent_id: d.agent_id,
    kind: d.kind,
    arn: d.arn,
    events: d.events,
    schema_versions: d.schema_versions ?? {},
    rate_limit: d.rate_limit ?? null,
    filter: d.filter ?? null,
    filter_never_matches: d.filter ? neverMatches(d.filter, d.events) === 'never' : false,
    status: d.status,
    status_reason: d.status_reason,
    verification: {
      sent_at: d.code_hash ? d.verification_sent_at : null,
      expires_at: d.code_hash && d.code_expires_at ? new Date(d.code_expires_at).toISOString() : null,
      last_error: d.verification_error,
    },
    verified_at: d.verified_at,
    policy: resourcePolicy(d.kind, d.arn, d.owner_id),
    key_policy_statement: keyPolicyStatement(d.kind, d.arn, d.owner_id),
    created_at: d.created_at,
  };
}

export async function createDestination(
  caller: Caller,
  agentId: string,
  input: CreateDestinationInput,
  along?: CommitAlong<CreatedDestinationAnswer>,
): Promise<CreatedDestinationAnswer> {
  const agent = await ownAgent(caller, agentId);
  const arn = parseDestinationArn(input.arn, setting('SERVICE_ACCOUNT_ID'));
  if (!arn.ok) throw validationError([{ path: 'arn', message: arn.reason }], 'The ARN cannot be a destination.');
  // At the cap already: refused before it takes one of the account's registrations (the insert checks again).
  if (((agent as { destination_count?: number }).destination_count ?? 0) >= DESTINATIONS.maxPerAgent) throw atCap();
  await takeWindowSlot({
    key: destinationKeys.registrationLimit(caller.userId),
    entity: ENTITY.destinationRegistrationLimit,
    ...DESTINATION_REGISTRATION_LIMITS,
    refusal: `An account may register ${DESTINATION_REGISTRATION_LIMITS.perWindow} destinations per ${DESTINATION_REGISTRATION_LIMITS.windowMs / 60_000} minutes (each sends a verification message); try again later.`,
  });
  const nowMs = Date.now();
  const now = new Date(nowMs).toISOString();
  const record: DestinationRecord = {
    id: newId('dst'),
    agent_id: agentId,
    owner_id: caller.userId,
    kind: arn.value.kind,
    arn: arn.value.arn,
    events: input.events,
    ...(input.schema_versions ? { schema_versions: input.schema_versions } : {}),
    ...(input.rate_limit ? { rate_limit: input.rate_limit } : {}),
    ...(input.filter ? { filter: input.filter } : {}),
    status: 'PENDING_VERIFICATION',
    status_reason: null,
    signing_secret: newWebhookSecret(),
    verification_sent_at: null,
    verification_requested_at: nowMs,
    verification_error: null,
    verified_at: null,
    created_at: now,
    updated_at: now,
  };
  const answer: CreatedDestinationAnswer = { ...toDestinationView(record), signing_secret: record.signing_secret };
  const inserted = await insertDestination(record, DESTINATIONS.maxPerAgent, along?.(answer));
  if (inserted !== 'created') {
    await ownAgent(caller, agentId); // deleted meanwhile: 404
    throw atCap();
  }
  return answer;
}

const atCap = () =>
  new AppError(
    'limit_exceeded',
    `An agent may have at most ${DESTINATIONS.maxPerAgent} destinations; delete one to add another.`,
  );

export async function listDestinations(caller: Caller, agentId: string): Promise<{ data: DestinationAnswer[] }> {
  await ownAgent(caller, agentId);
  return { data: (await listDestinationsOf(agentId)).map(toDestinationView) };
}

/** The caller's agent and its destination (404 for anyone else's, as for a missing one). */
export async function ownDestination(
  caller: Caller,
  agentId: string,
  destinationId: string,
): Promise<{ agent: AgentRecord; destination: DestinationRecord }> {
  const agent = await ownAgent(caller, agentId);
  const destination = await readDestination(agentId, destinationId);
  if (!destination || destination.owner_id !== caller.userId) throw notFound('Destination');
  return { agent, destination };
}

export const getDestination = async (caller: Caller, agentId: string, destinationId: string) =>
  toDestinationView((await ownDestination(caller, agentId, destinationId)).destination);

/** Gone at once: its pending deliveries are abandoned when they come due (the worker finds no destination). */
export async function deleteDestination(
  caller: Caller,
  agentId: string,
  destinationId: string,
  along?: CommitAlong<void>,
): Promise<void> {
  await ownAgent(caller, agentId);
  if (!(await deleteDestinationItem(agentId, destinationId, caller.userId, along?.()))) throw notFound('Destination');
}

/**
 * The code of the latest verification message → ENABLED. A wrong code counts against the code's
 * tries (exactly, under concurrent posts: each is a conditional ADD); an expired or used-up code,
 * or none (the message could not be sent, or is still on its way), answers so and asks for a new
 * message: at most one per destination per DESTINATIONS.verificationIntervalMs, whatever became of
 * the last, else 429 with the wait.
 */
export async function verifyDestination(
  caller: Caller,
  agentId: string,
  destinationId: string,
  code: string,
  nowMs = Date.now(),
  along?: CommitAlong<DestinationAnswer>,
): Promise<DestinationAnswer> {
  const { destination } = await ownDestination(caller, agentId, destinationId);
  if (destination.status === 'ENABLED')
    throw new AppError('invalid_transition', 'This destination is already ENABLED.');
  const { code_hash: hash, code_expires_at: expiresAt = 0, wrong_codes: wrong = 0 } = destination;
  if (!hash || expiresAt <= nowMs || wrong >= DESTINATIONS.maxWrongCodes) {
    const why = !hash
      ? destination.verification_error
        ? `The verification message could not be sent (${destination.verification_error}); apply the destination's policy.`
        : 'The verification message is on its way.'
      : expiresAt <= nowMs
        ? 'The code has expired.'
        : `${DESTINATIONS.maxWrongCodes} wrong codes were posted for it; it no longer counts.`;
    await askForNewMessage(destination, nowMs, why);
    throw new AppError('verification_code_expired', `${why} A new verification message is on its way: post its code.`);
  }
  if (!codeMatches(code, hash)) {
    const counted = await updateDestination(agentId, destinationId, {
      set: { updated_at: nowIso() },
      add: { wrong_codes: 1 },
      condition: 'code_hash = :hash AND (attribute_not_exists(wrong_codes) OR wrong_codes < :max)',
      values: { ':hash': hash, ':max': DESTINATIONS.maxWrongCodes },
    });
    const left = counted.ok ? DESTINATIONS.maxWrongCodes - (counted.record.wrong_codes ?? 0) : 0;
    throw new AppError(
      'verification_code_mismatch',
      left > 0
        ? `That is not the code of the latest verification message; ${left} ${left === 1 ? 'try' : 'tries'} left for it.`
        : 'That is not the code of the latest verification message, and it was the last try: the next call sends a new code.',
    );
  }
  const enabling = {
    set: { status: 'ENABLED', status_reason: null, verified_at: new Date(nowMs).toISOString(), updated_at: nowIso() },
    remove: ['code_hash', 'code_expires_at', 'wrong_codes', 'failing_since'],
    condition:
      'code_hash = :hash AND code_expires_at > :now AND (attribute_not_exists(wrong_codes) OR wrong_codes < :max)',
    values: { ':hash': codeHash(code), ':now': nowMs, ':max': DESTINATIONS.maxWrongCodes },
  };
  const enabled = along
    ? await updateDestinationAlong(destination, enabling, (record) => along(toDestinationView(record)))
    : await updateDestination(agentId, destinationId, enabling);
  if (!enabled.ok) {
    if (enabled.current?.status === 'ENABLED') return toDestinationView(enabled.current);
    if (!enabled.current) throw notFound('Destination');
    throw new AppError(
      'verification_code_expired',
      'The code stopped counting while it was checked: post the code of the latest verification message.',
    );
  }
  return toDestinationView(enabled.record);
}

/** A new verification message, or 429 until the destination's interval lets one through. */
async function askForNewMessage(destination: DestinationRecord, nowMs: number, why: string): Promise<void> {
  const asked = await askForVerification(destination.agent_id, destination.id, nowMs);
  if (asked.ok) return;
  const current = asked.current;
  if (!current) throw notFound('Destination');
  if (current.status === 'ENABLED') throw new AppError('invalid_transition', 'This destination is already ENABLED.');
  const waitMs = nextVerificationAskAt(current.verification_requested_at ?? nowMs) - nowMs;
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  throw rateLimited(
    `${why} A verification message was asked for less than ${DESTINATIONS.verificationIntervalMs / 1000} s ago (one a minute per destination, whatever became of the last): post its code when it arrives, or ask again in ${seconds} s.`,
    seconds,
  );
}

/**
 * The `v1a` option of an agent's webhook (docs/webhooks.md, "ed25519 signatures"): its key pairs,
 * made, rotated and dropped by the owner, and their public halves, published to the owner and,
 * without a key, to anyone who holds the agent's id (a receiver reads it from the event body).
 */
import type { Caller } from '../core/caller.ts';
import { notFound } from '../core/errors.ts';
import { nowIso } from '../core/time.ts';
import type { CommitAlong } from '../store/transact.ts';
import { type PublicJwk, publicJwk } from '../webhooks/ed25519.ts';
import { DEFAULT_OVERLAP_SECONDS, overlapEnd } from '../webhooks/rotation.ts';
import { liveSigningKeys, newStoredSigningKey, type PublishedKey, publishedKeys } from '../webhooks/signing-keys.ts';
import { ownAgent } from './agents.ts';
import { type AgentRecord, isAgentId } from './model.ts';
import type { RotateSecretInput } from './schemas.ts';
import { CopyOf, getAgent, isFailed, updateOwnedAgent } from './store.ts';

export interface PublicKeys {
  v1a: boolean;
  keys: PublishedKey[];
}

export async function getPublicKeys(caller: Caller, agentId: string): Promise<PublicKeys> {
  const agent = await ownAgent(caller, agentId);
  return { v1a: Boolean(agent.signing_key), keys: publishedKeys(agent) };
}

/**
 * Turns `v1a` on with a first key pair, or rotates: the new pair signs from the next request on and
 * the previous one beside it for `expire_previous_in_seconds` (default 24 h), copied in the same
 * conditional update as with secrets, so concurrent rotations never lose track of the last key.
 */
export async function rotateSigningKey(
  caller: Caller,
  agentId: string,
  input: RotateSecretInput = {},
  along?: CommitAlong<PublicKeys>,
): Promise<PublicKeys> {
  if (!isAgentId(agentId)) throw notFound('Agent');
  const now = nowIso();
  const key = await newStoredSigningKey(agentId, now);
  const expiresAt = overlapEnd(input.expire_previous_in_seconds ?? DEFAULT_OVERLAP_SECONDS);
  const answer = (agent: AgentRecord): PublicKeys => ({ v1a: true, keys: publishedKeys(agent) });
  const result = await updateOwnedAgent(
    agentId,
    caller.userId,
    {
      set: {
        signing_key: key,
        // The first key has no previous one (`if_not_exists(signing_key, null)`).
        previous_signing_key: expiresAt === null ? null : new CopyOf('signing_key', { value: null }),
        previous_signing_key_expires_at: expiresAt,
        updated_at: now,
      },
      bumpVersion: false,
    },
    along && ((next) => along(answer(next))),
  );
  if (isFailed(result)) throw notFound('Agent');
  return answer(result);
}

/** `v1a` off: both key pairs dropped at once (deliveries carry `v1` only from the next request on). */
export async function dropSigningKeys(
  caller: Caller,
  agentId: string,
  along?: CommitAlong<PublicKeys>,
): Promise<PublicKeys> {
  if (!isAgentId(agentId)) throw notFound('Agent');
  const answer: PublicKeys = { v1a: false, keys: [] };
  const result = await updateOwnedAgent(
    agentId,
    caller.userId,
    {
      set: {
        signing_key: null,
        previous_signing_key: null,
        previous_signing_key_expires_at: null,
        updated_at: nowIso(),
      },
      bumpVersion: false,
    },
    along && (() => along(answer)),
  );
  if (isFailed(result)) throw notFound('Agent');
  return answer;
}

/**
 * `GET /api/v1/webhook-keys/{agent_id}`, no key: the JWKS (RFC 7517) of an agent's live public keys,
 * for receivers that fetch keys rather than configure them. 404 when the agent has none, as for
 * an agent that does not exist. Public keys are public; the id is 128 bits of the agent's own.
 */
export async function agentJwks(agentId: string): Promise<{ keys: PublicJwk[] }> {
  const agent = await getAgent(agentId);
  const keys = agent ? liveSigningKeys(agent) : [];
  if (keys.length === 0) throw notFound('Agent signing key');
  return { keys: keys.map((key) => publicJwk(key.kid, key.x)) };
}

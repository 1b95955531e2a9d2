import type { Caller } from '../core/caller.ts';
import { AppError, notFound } from '../core/errors.ts';
import { nowIso } from '../core/time.ts';
import type { CommitAlong } from '../store/transact.ts';
import { DEFAULT_OVERLAP_SECONDS, overlapEnd } from '../webhooks/rotation.ts';
import { newWebhookSecret } from '../webhooks/secret.ts';
import { ownAgent } from './agents.ts';
import { type AgentRecord, type AgentView, isAgentId, toAgentView } from './model.ts';
import type { RotateSecretInput } from './schemas.ts';
import { CopyOf, isFailed, updateOwnedAgent, type WriteResult } from './store.ts';

/**
 * Webhook configuration of an agent (docs/api.md): PATCH moves any
 * state to PENDING_VERIFICATION, DELETE to DISABLED. Each change bumps `config_version`, which
 * is what lets a running handshake notice that the configuration it checked is gone.
 */

/** DISABLED, URL and events cleared; the secret is kept so a later configuration signs with the same one. */
export async function disableWebhook(
  caller: Caller,
  agentId: string,
  along?: CommitAlong<AgentView>,
): Promise<AgentView> {
  return changeWebhook(
    caller,
    agentId,
    {
      set: {
        webhook_status: 'DISABLED',
        webhook_disabled_reason: 'manual',
        webhook_url: null,
        events: [],
        updated_at: nowIso(),
      },
      bumpVersion: true,
    },
    along,
  );
}

/** One change of the caller's agent, answered (and sealed along) as the agent. */
export async function changeWebhook(
  caller: Caller,
  agentId: string,
  change: Parameters<typeof updateOwnedAgent>[2],
  along?: CommitAlong<AgentView>,
): Promise<AgentView> {
  return toAgentView(owned(await update(caller, agentId, change, along && ((next) => along(toAgentView(next))))));
}

export async function getWebhookSecret(caller: Caller, agentId: string): Promise<{ webhook_secret: string }> {
  const agent = await ownAgent(caller, agentId);
  if (!agent.webhook_secret) throw notConfigured();
  return { webhook_secret: agent.webhook_secret };
}

/**
 * Deliveries sign with the new secret from the next request on; the previous one keeps signing
 * beside it (`webhook-signature` only) for `expire_previous_in_seconds` (default 24 h), copied in
 * the same conditional update, so concurrent rotations never lose track of which secret was last.
 */
export async function rotateWebhookSecret(
  caller: Caller,
  agentId: string,
  input: RotateSecretInput = {},
  along?: CommitAlong<{ webhook_secret: string }>,
): Promise<{ webhook_secret: string }> {
  const secret = newWebhookSecret();
  const expiresAt = overlapEnd(input.expire_previous_in_seconds ?? DEFAULT_OVERLAP_SECONDS);
  const result = await update(
    caller,
    agentId,
    {
      set: {
        webhook_secret: secret,
        previous_webhook_secret: expiresAt === null ? null : new CopyOf('webhook_secret'),
        previous_secret_expires_at: expiresAt,
        updated_at: nowIso(),
      },
      condition: 'attribute_exists(webhook_secret)',
      bumpVersion: true,
    },
    along && (() => along({ webhook_secret: secret })),
  );
  if (isFailed(result)) throw result.current?.owner_id === caller.userId ? notConfigured() : notFound('Agent');
  return { webhook_secret: secret };
}

export const notConfigured = () =>
  new AppError('webhook_not_configured', 'This agent has no webhook yet: configure one with PATCH …/webhook first.');

export function update(
  caller: Caller,
  agentId: string,
  change: Parameters<typeof updateOwnedAgent>[2],
  along?: Parameters<typeof updateOwnedAgent>[3],
): Promise<WriteResult> {
  if (!isAgentId(agentId)) return Promise.resolve({ failed: true, current: undefined });
  return updateOwnedAgent(agentId, caller.userId, change, along);
}

/** Writes whose only condition is ownership: a failure means missing or not the caller's. */
export function owned(result: WriteResult): AgentRecord {
  if (isFailed(result)) throw notFound('Agent');
  return result;
}

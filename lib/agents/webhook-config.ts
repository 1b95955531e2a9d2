import type { Caller } from '../core/caller.ts';
import { AppError, notFound } from '../core/errors.ts';
import { nowIso } from '../core/time.ts';
import type { CommitAlong } from '../store/transact.ts';
import { sealHeaders } from '../webhooks/custom-headers.ts';
import { DEFAULT_OVERLAP_SECONDS, overlapEnd } from '../webhooks/rotation.ts';
import { newWebhookSecret } from '../webhooks/secret.ts';
import { ownAgent } from './agents.ts';
import { type AgentRecord, type AgentView, isAgentId, toAgentView } from './model.ts';
import type { ConfigureWebhookInput, RotateSecretInput } from './schemas.ts';
import { CopyOf, IfAbsent, isFailed, updateOwnedAgent, type WriteResult } from './store.ts';

/**
 * Webhook configuration of an agent (docs/api.md): PATCH moves any
 * state to PENDING_VERIFICATION, DELETE to DISABLED. Each change bumps `config_version`, which
 * is what lets a running handshake notice that the configuration it checked is gone.
 */

/** The first configuration also returns the secret (docs/api.md); later ones never do. */
export async function configureWebhook(
  caller: Caller,
  agentId: string,
  input: ConfigureWebhookInput,
  along?: CommitAlong<ConfiguredWebhook>,
): Promise<ConfiguredWebhook> {
  const candidate = newWebhookSecret();
  const headers = input.headers === undefined ? undefined : await sealHeaders(input.headers);
  // The candidate is random: if it is what is stored now, this call made the first configuration.
  const answer = (agent: AgentRecord): ConfiguredWebhook => ({
    ...toAgentView(agent),
    ...(agent.webhook_secret === candidate ? { webhook_secret: candidate } : {}),
  });
  const agent = owned(
    await update(
      caller,
      agentId,
      {
        set: {
          webhook_url: input.webhook_url,
          events: input.events,
          ...(input.schema_versions ? { schema_versions: input.schema_versions } : {}),
          ...(input.filter !== undefined ? { filter: input.filter } : {}),
          ...(headers !== undefined ? { webhook_headers: headers } : {}),
          webhook_status: 'PENDING_VERIFICATION',
          webhook_secret: new IfAbsent(candidate),
          updated_at: nowIso(),
        },
        bumpVersion: true,
      },
      along && ((next) => along(answer(next))),
    ),
  );
  return answer(agent);
}

type ConfiguredWebhook = AgentView & { webhook_secret?: string };

/** DISABLED, URL and events cleared; the secret is kept so a later configuration signs with the same one. */
export async function disableWebhook(
  caller: Caller,
  agentId: string,
  along?: CommitAlong<AgentView>,
): Promise<AgentView> {
  const agent = owned(
    await update(
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
      along && ((next) => along(toAgentView(next))),
    ),
  );
  return toAgentView(agent);
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

function update(
  caller: Caller,
  agentId: string,
  change: Parameters<typeof updateOwnedAgent>[2],
  along?: Parameters<typeof updateOwnedAgent>[3],
): Promise<WriteResult> {
  if (!isAgentId(agentId)) return Promise.resolve({ failed: true, current: undefined });
  return updateOwnedAgent(agentId, caller.userId, change, along);
}

/** Writes whose only condition is ownership: a failure means missing or not the caller's. */
function owned(result: WriteResult): AgentRecord {
  if (isFailed(result)) throw notFound('Agent');
  return result;
}

/**
 * POST …/webhook/verify: one handshake, answered when it ends. Only success changes the status,
 * and only if the configuration is still the one that was checked (`config_version`): a PATCH,
 * DELETE or rotate that lands during the handshake wins over its stale success.
 * Each handshake is one outbound POST to a URL the caller chose, so it runs under the agent's verify
 * limiter (one in flight, a few per minute: lib/limits/verify-limit.ts), taken after the checks
 * that cost nothing outbound.
 * `outbound` lets tests script DNS; the handler passes nothing (system resolver, DEVELOPMENT_MODE).
 */
import type { Caller } from '../core/caller.ts';
import { AppError, notFound } from '../core/errors.ts';
import { DELIVERY } from '../core/settings.ts';
import { nowIso } from '../core/time.ts';
import { takeAccountHandshakeSlot } from '../limits/account-handshake-limit.ts';
import { type LimiterOptions, startHandshake } from '../limits/verify-limit.ts';
import { type OutboundOptions, postJson } from '../net/outbound.ts';
import { log } from '../observability/log.ts';
import { recordVerification } from '../observability/metrics.ts';
import type { CommitAlong } from '../store/transact.ts';
import { customHeaderValues } from '../webhooks/custom-headers.ts';
import { buildChallengeRequest, judgeChallengeReply, newChallengeToken } from '../webhooks/handshake.ts';
import { signingSecrets } from '../webhooks/rotation.ts';
import { ed25519SigningKeys } from '../webhooks/signing-keys.ts';
import { ownAgent } from './agents.ts';
import type { AgentRecord } from './model.ts';
import { type AgentView, provenFields, toAgentView } from './model.ts';
import { agentUpdate, isFailed, updateOwnedAgentAlone, updateReadAgent } from './store.ts';
import { notConfigured } from './webhook-config.ts';

export async function verifyWebhook(
  caller: Caller,
  agentId: string,
  outbound: OutboundOptions = {},
  limiter: LimiterOptions = {},
  along?: CommitAlong<AgentView>,
): Promise<AgentView> {
  const agent = await ownAgent(caller, agentId);
  if (agent.webhook_status === 'DISABLED' || !agent.webhook_url || !agent.webhook_secret) throw notConfigured();

  const token = newChallengeToken();
  const started = Date.now();
  const request = buildChallengeRequest({
    agentId: agent.id,
    url: agent.webhook_url,
    secret: signingSecrets(agent.webhook_secret, agent),
    token,
    ed25519Keys: await ed25519SigningKeys(agent),
    customHeaders: await customHeaderValues(agent.webhook_headers),
  });
  const lease = await startHandshake(agent.id, limiter);
  // The account's window after the agent's lease, so a handshake the agent refuses takes none of it.
  await takeAccountHandshakeSlot(caller.userId, limiter.now).catch(async (err: unknown) => {
    await lease.release();
    throw err;
  });
  let reply: Awaited<ReturnType<typeof postJson>>;
  const posted = Date.now();
  try {
    reply = await postJson(request, outbound);
  } finally {
    await lease.release();
  }
  // A challenge answered as fast as a delivery must be proves the endpoint (lib/events/delivery/endpoint-slots.ts).
  const inTime = Date.now() - posted <= DELIVERY.slowPostMs;
  const verdict = judgeChallengeReply(reply, token);
  const outcome = verdict.ok ? 'ok' : verdict.code;
  log.info('webhook handshake', { agentId: agent.id, outcome, ms: Date.now() - started });
  recordVerification(outcome);
  if (!verdict.ok) throw new AppError(verdict.code, verdict.message);

  const now = nowIso();
  const enable = {
    set: {
      webhook_status: 'ENABLED',
      last_verified_at: now,
      updated_at: now,
      ...(inTime ? provenFields(agent.config_version, Date.now()) : {}),
    },
    condition: 'config_version = :verified',
    values: { ':verified': agent.config_version },
    bumpVersion: false,
  };
  // The condition pins the configuration checked, and with it what the answer shows: it is the agent as read, enabled.
  const result = along
    ? await updateReadAgent(
        { ...agent, ...enable.set } as AgentRecord,
        agentUpdate(agent.id, caller.userId, enable),
        (next) => along(toAgentView(next)),
      )
    : await updateOwnedAgentAlone(agent.id, caller.userId, enable);
  if (isFailed(result)) {
    if (result.current?.owner_id !== caller.userId) throw notFound('Agent');
    throw new AppError(
      'invalid_transition',
      'The webhook configuration changed during the handshake; verify the new one.',
    );
  }
  return toAgentView(result);
}

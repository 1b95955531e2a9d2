/**
 * Periodic re-verification (docs/webhooks.md, "Re-verification"): an ENABLED webhook whose last
 * handshake is older than 72 hours is challenged again, as Zoom does, by the delivery worker after
 * a batch that attempted a delivery to it. The webhook stays ENABLED meanwhile and deliveries go on;
 * a success moves `last_verified_at`, a failure is tried again an hour later, and after 3 failures
 * in a row the webhook goes back to PENDING_VERIFICATION (no more deliveries until the owner verifies
 * again) with the `agent.webhook.unverified` operational event.
 *
 * One worker at a time: a challenge is claimed by a conditional write of `reverify_claimed_until`
 * (the other workers' conditions fail), which also spaces retries. The state is on the agent item:
 * `last_verified_at`, `reverify_failures`, `reverify_claimed_until` (ms). A configuration change
 * (config_version) makes the challenge's outcome stale: it is then not recorded.
 */
import type { AgentRecord } from '../../agents/model.ts';
import { DELIVERY } from '../../core/settings.ts';
import { postJson } from '../../net/outbound.ts';
import { log } from '../../observability/log.ts';
import { customHeaderValues } from '../../webhooks/custom-headers.ts';
import { buildChallengeRequest, judgeChallengeReply, newChallengeToken } from '../../webhooks/handshake.ts';
import { signingSecrets } from '../../webhooks/rotation.ts';
import { ed25519SigningKeys } from '../../webhooks/signing-keys.ts';
import { announceSafely, announceWebhookUnverified } from '../feed/operational.ts';
import { claimReverify, recordReverified, recordReverifyFailure } from './store.ts';

export interface ReverifyRecord {
  reverify_failures?: number;
  reverify_claimed_until?: number;
}

/** Whether the webhook's handshake is stale and no worker holds or waits on a claim. Absent `last_verified_at`: verified before it was kept, so due. */
export function reverifyDue(agent: AgentRecord & ReverifyRecord, nowMs: number): boolean {
  if (agent.webhook_status !== 'ENABLED' || !agent.webhook_url || !agent.webhook_secret) return false;
  if ((agent.reverify_claimed_until ?? 0) > nowMs) return false;
  const last = agent.last_verified_at ? Date.parse(agent.last_verified_at) : 0;
  return nowMs - last >= DELIVERY.reverifyAfterSeconds * 1000;
}

export type ReverifyOutcome = 'verified' | 'failed' | 'unverified' | 'skipped';

export async function reverify(agent: AgentRecord & ReverifyRecord, nowMs: number): Promise<ReverifyOutcome> {
  if (!reverifyDue(agent, nowMs)) return 'skipped';
  const claim = await claimReverify(
    agent.id,
    agent.config_version,
    nowMs,
    nowMs + DELIVERY.reverifyRetrySeconds * 1000,
  );
  if (!claim.ok) return 'skipped';

  const token = newChallengeToken();
  const reply = await postJson(
    buildChallengeRequest({
      agentId: agent.id,
      url: agent.webhook_url!,
      secret: signingSecrets(agent.webhook_secret!, agent),
      token,
      ed25519Keys: await ed25519SigningKeys(agent),
      customHeaders: await customHeaderValues(agent.webhook_headers),
    }),
  );
  const verdict = judgeChallengeReply(reply, token);
  log.info('webhook re-verification', { agentId: agent.id, outcome: verdict.ok ? 'ok' : verdict.code });
  if (verdict.ok) {
    await recordReverified(agent.id, agent.config_version, new Date(nowMs).toISOString());
    return 'verified';
  }
  const failures = (agent.reverify_failures ?? 0) + 1;
  const demote = failures >= DELIVERY.reverifyFailuresToDemote;
  const recorded = await recordReverifyFailure(agent.id, agent.config_version, demote, new Date(nowMs).toISOString());
  if (!recorded.ok || !demote) return 'failed';
  log.warn('webhook back to PENDING_VERIFICATION: re-verification failed', { agentId: agent.id, failures });
  await announceSafely('agent.webhook.unverified', agent, () => announceWebhookUnverified(agent, failures));
  return 'unverified';
}

/**
 * Auto-disable (docs/webhooks.md, "Retry schedule and auto-disable"): a webhook whose attempts
 * have all failed for AUTO_DISABLE_AFTER (5 days by default) becomes DISABLED, and a
 * `service.webhook.disabled` event goes to the agent's feed through the outbox, like every event.
 *
 * The agent item keeps `failing_since` (ms) and `failing_config` (the config_version it was
 * measured under): written when the first failure follows a success and removed by the next
 * success, so a steady stream of successes or of failures adds no write. A PATCH, rotation or
 * DELETE bumps config_version, which starts the clock afresh for the new configuration.
 */

import type { AgentRecord } from '../../agents/model.ts';
import { setting } from '../../core/environment.ts';
import { log } from '../../observability/log.ts';
import { tableName } from '../../store/client.ts';
import * as keys from '../../store/key-builders.ts';
import { announceSafely, announceWebhookDisabled } from '../feed/operational.ts';
import { commitWithEvents } from '../feed/outbox.ts';
import { clearFailing, markFailing } from './store.ts';

/** The settings' WEBHOOK_AUTO_DISABLE_AFTER_SECONDS (read per call, like the retry schedule). */
const autoDisableAfterMs = (): number => setting('WEBHOOK_AUTO_DISABLE_AFTER_SECONDS') * 1000;

export interface HealthRecord {
  failing_since?: number;
  failing_config?: number;
}

/** The attempts a batch made for one agent, as read before the batch. */
export interface AgentAttempts {
  agent: AgentRecord & HealthRecord;
  anySucceeded: boolean;
  anyFailed: boolean;
}

const failingSince = (agent: AgentRecord & HealthRecord): number | undefined =>
  agent.failing_config === agent.config_version ? agent.failing_since : undefined;

/** After a batch: at most one write per agent, and only when its health changes. */
export async function noteAttempts(
  { agent, anySucceeded, anyFailed }: AgentAttempts,
  nowMs: number,
): Promise<'healthy' | 'failing' | 'disabled' | 'unchanged'> {
  const since = failingSince(agent);
  if (anySucceeded) {
    if (agent.failing_since === undefined) return 'unchanged';
    await clearFailing(agent.id, agent.failing_since);
    return 'healthy';
  }
  if (!anyFailed || agent.webhook_status !== 'ENABLED') return 'unchanged';
  if (since === undefined) {
    await markFailing(agent.id, agent.config_version, nowMs);
    return 'failing';
  }
  if (nowMs - since < autoDisableAfterMs()) return 'unchanged';
  return (await disableFailingWebhook(agent, since)) ? 'disabled' : 'unchanged';
}

/** DISABLED with the reason, and the event, in one transaction; false if the webhook changed meanwhile. */
async function disableFailingWebhook(agent: AgentRecord, since: number): Promise<boolean> {
  const sinceIso = new Date(since).toISOString();
  const committed = await disableWithNotice(agent, {
    reason: 'consecutive_failures',
    condition: 'failing_since = :since',
    values: { ':since': since },
    data: {
      message: `Every delivery attempt failed since ${sinceIso}; the webhook was disabled automatically. Configure (PATCH …/webhook) and verify it again to resume deliveries.`,
      failing_since: sinceIso,
    },
  });
  if (committed) log.warn('webhook disabled after failing deliveries', { agentId: agent.id, failingSince: sinceIso });
  return committed;
}

/**
 * A 410 Gone answer (the Standard Webhooks spec: the endpoint is gone for good): DISABLED at once,
 * with the reason on the agent and the notice in the feed. False if the webhook changed meanwhile
 * (reconfigured, or another worker's 410 disabled it first: one notice only).
 */
export async function disableGoneWebhook(agent: AgentRecord, nowMs: number): Promise<boolean> {
  const committed = await disableWithNotice(agent, {
    reason: 'endpoint_gone',
    data: {
      message: `The endpoint answered 410 Gone at ${new Date(nowMs).toISOString()}; the webhook was disabled at once. Configure (PATCH …/webhook) and verify it again to resume deliveries.`,
    },
  });
  if (committed) log.warn('webhook disabled: the endpoint answered 410 Gone', { agentId: agent.id });
  return committed;
}

export type DisabledReason = 'consecutive_failures' | 'endpoint_gone';

async function disableWithNotice(
  agent: AgentRecord,
  notice: {
    reason: DisabledReason;
    condition?: string;
    values?: Record<string, unknown>;
    data: { message: string; failing_since?: string };
  },
): Promise<boolean> {
  const result = await commitWithEvents(
    (now) => ({
      Update: {
        TableName: tableName(),
        Key: keys.agent(agent.id),
        ConditionExpression: `webhook_status = :enabled AND config_version = :cv${notice.condition ? ` AND ${notice.condition}` : ''}`,
        UpdateExpression:
          'SET webhook_status = :disabled, webhook_disabled_reason = :reason, updated_at = :now REMOVE failing_since, failing_config ADD config_version :one',
        ExpressionAttributeValues: {
          ':enabled': 'ENABLED',
          ':disabled': 'DISABLED',
          ':reason': notice.reason,
          ':cv': agent.config_version,
          ':now': now,
          ':one': 1,
          ...notice.values,
        },
      },
    }),
    {
      agentIds: [agent.id],
      type: 'service.webhook.disabled',
      data: { reason: notice.reason, ...notice.data, webhook_url: agent.webhook_url },
    },
  );
  if (result.committed)
    await announceSafely('agent.webhook.disabled', agent, () =>
      announceWebhookDisabled(agent, notice.reason, notice.data.message),
    );
  return result.committed;
}

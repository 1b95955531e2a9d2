/**
 * PATCH …/webhook (docs/api.md): any state to PENDING_VERIFICATION, with the URL, kinds, pins
 * and custom headers given (webhook-config.ts has the other webhook changes). Its own module:
 * sealing secret headers needs the data key's KMS client, which no other agent route bundles.
 */
import type { Caller } from '../core/caller.ts';
import { nowIso } from '../core/time.ts';
import type { CommitAlong } from '../store/transact.ts';
import { sealHeaders } from '../webhooks/custom-headers.ts';
import { newWebhookSecret } from '../webhooks/secret.ts';
import { type AgentRecord, type AgentView, toAgentView } from './model.ts';
import { IfAbsent } from './store.ts';
import type { ConfigureWebhookInput } from './webhook-body.ts';
import { owned, update } from './webhook-config.ts';

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
          ...(headers !== undefined ? { webhook_headers: headers } : {}),
          ...(input.rate_limit === undefined ? {} : { rate_limit: input.rate_limit }),
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

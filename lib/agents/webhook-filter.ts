/**
 * PUT …/webhook/filter (docs/webhooks.md, "Filters"): the webhook's content filter, set or removed,
 * without touching its verification (the filter is not what the handshake checked, so neither the
 * status nor `config_version` moves). The outbox judges each event by the filter the agent item
 * holds when the event takes its feed slot, so a change applies to events made after it.
 */
import type { Caller } from '../core/caller.ts';
import { nowIso } from '../core/time.ts';
import type { FilterChangeInput } from '../filters/grammar.ts';
import type { CommitAlong } from '../store/transact.ts';
import type { AgentView } from './model.ts';
import { changeWebhook } from './webhook-config.ts';

export async function setWebhookFilter(
  caller: Caller,
  agentId: string,
  input: FilterChangeInput,
  along?: CommitAlong<AgentView>,
): Promise<AgentView> {
  return changeWebhook(
    caller,
    agentId,
    { set: { filter: input.filter, updated_at: nowIso() }, bumpVersion: false },
    along,
  );
}

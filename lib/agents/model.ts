import type { EventType } from '../core/event-types.ts';
import type { SchemaPins } from '../core/event-versions.ts';
import { ID_PATTERN } from '../core/ids.ts';
import { DELIVERY } from '../core/settings.ts';
import type { Filter } from '../filters/filter.ts';
import { neverMatches } from '../filters/never-matches.ts';
import { headerViews, type StoredHeader } from '../webhooks/custom-headers.ts';
import type { SigningKeyFields } from '../webhooks/signing-keys.ts';
import type { AgentView } from './answer.ts';

export type WebhookDisabledReason = 'manual' | 'consecutive_failures' | 'endpoint_gone';

/** webhook_status of docs/api.md. */
export type WebhookStatus = 'DISABLED' | 'PENDING_VERIFICATION' | 'ENABLED';

/** The stored agent item (CONTRIBUTING.md, "Stored agent item"), without its key attributes. */
export interface AgentRecord extends SigningKeyFields {
  id: string;
  owner_id: string;
  name: string;
  webhook_url: string | null;
  events: EventType[];
  webhook_status: WebhookStatus;
  /** Absent until the first configuration. */
  webhook_secret?: string;
  /** The secret before the last rotation, signing beside the current one until `previous_secret_expires_at` (unix s); lib/webhooks/rotation.ts. */
  previous_webhook_secret?: string | null;
  previous_secret_expires_at?: number | null;
  /** Why the service or the owner disabled a configured webhook; shown only while DISABLED. */
  webhook_disabled_reason?: WebhookDisabledReason | null;
  /** When a handshake last succeeded (ISO 8601). */
  last_verified_at?: string | null;
  /** The schema version the webhook's deliveries are shaped to, per kind (lib/core/event-versions.ts); absent: none pinned. */
  schema_versions?: SchemaPins;
  /** Deliveries a second the owner allows (lib/agents/rate-limit.ts); absent or null: no limit. */
  rate_limit?: number | null;
  /** The webhook's content filter (lib/filters); absent or null: every subscribed event. */
  filter?: Filter | null;
  /** Static headers sent on every request to the webhook (lib/webhooks/custom-headers.ts); secret values sealed. */
  webhook_headers?: StoredHeader[];
  /** +1 on every PATCH / DELETE / rotate: a handshake may only enable the configuration it checked. */
  config_version: number;
  /**
   * The feed's ticket counter: the last slot handed out (lib/events/feed/position.ts). 0 for a new
   * agent; absent on agents created before positions existed until their next event.
   */
  feed_seq?: number;
  /** Writer's clock (ms) when the last ticket was taken: how old the newest empty slot can be. */
  feed_ticket_at?: number;
  /** Slots at or below it hold events from before positions existed (not numbered one by one). */
  feed_base?: number;
  created_at: string;
  updated_at: string;
}

/** The agent as docs/api.md shows it (answer.ts). The secret is never part of it. */
export type { AgentView };

export function toAgentView(agent: AgentRecord): AgentView {
  return {
    id: agent.id,
    name: agent.name,
    webhook_url: agent.webhook_url,
    events: agent.events,
    webhook_status: agent.webhook_status,
    webhook_disabled_reason: agent.webhook_status === 'DISABLED' ? (agent.webhook_disabled_reason ?? null) : null,
    last_verified_at: agent.last_verified_at ?? null,
    schema_versions: agent.schema_versions ?? {},
    rate_limit: agent.rate_limit ?? null,
    filter: agent.filter ?? null,
    filter_never_matches: agent.filter
      ? neverMatches(agent.filter, agent.events.length > 0 ? agent.events : undefined) === 'never'
      : false,
    headers: headerViews(agent.webhook_headers),
    created_at: agent.created_at,
    webhook_circuit: circuitView(agent as AgentRecord & CircuitRecord & ProvenRecord),
  };
}

/** The webhook's circuit, kept on the agent item by the delivery workers (lib/events/delivery/circuit.ts). */
export interface CircuitRecord {
  circuit_failures?: number;
  circuit_open_until?: number;
  circuit_openings?: number;
}

/**
 * Whether the endpoint is proven (lib/events/delivery/endpoint-slots.ts): it answered a batch in
 * time under its current configuration, so its requests are not capped.
 */
export interface ProvenRecord {
  config_version?: number;
  post_proven_until?: number;
  post_proven_config?: number;
}

export const isProven = (record: ProvenRecord, nowMs: number): boolean =>
  (record.post_proven_until ?? 0) > nowMs && record.post_proven_config === record.config_version;

/** The fields that make it proven from `nowMs` on, for this configuration. */
export const provenFields = (configVersion: number, nowMs: number) => ({
  post_proven_until: nowMs + DELIVERY.provenSeconds * 1000,
  post_proven_config: configVersion,
});

/** The circuit fields the delivery workers keep on the agent item (lib/events/delivery/circuit.ts), as words. */
function circuitView(c: CircuitRecord & ProvenRecord, nowMs = Date.now()): AgentView['webhook_circuit'] {
  const openUntil = c.circuit_open_until;
  return {
    state: openUntil === undefined ? 'closed' : openUntil > nowMs ? 'open' : 'probing',
    failures: c.circuit_failures ?? 0,
    open_until: openUntil === undefined ? null : new Date(openUntil).toISOString(),
    max_requests_at_once: isProven(c, nowMs) ? null : DELIVERY.endpointInFlight,
  };
}

/** Ids that cannot be an agent's are simply not found: the 404 is the same as for someone else's. */
export const isAgentId = (id: string): boolean => ID_PATTERN.agt.test(id);

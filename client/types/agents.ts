import type * as OpenApiTypes from './openapi.ts';

/** Agents, webhook configuration, events and deliveries (docs/api.md "Agents, webhooks and events"). */

export type WebhookStatus = 'DISABLED' | 'PENDING_VERIFICATION' | 'ENABLED';

/** The event kinds an agent may subscribe its webhook to. */
export type ContractEventType = 'contract.funded' | 'contract.released' | 'contract.refunded' | 'contract.verification.completed';

export interface Agent {
  id: string;
  name: string;
  webhook_url: string | null;
  events: ContractEventType[];
  webhook_status: WebhookStatus;
  created_at: string;
}

/** The first webhook configuration of an agent also returns its signing secret. */
export interface ConfiguredAgent extends Agent {
  webhook_secret?: string;
}

export interface ListAgentsParams {
  /** 1–100, default 100. */
  limit?: number;
  cursor?: string;
}

export interface CreateAgentInput {
  name: string;
}

export interface ConfigureWebhookInput {
  webhook_url: string;
  events: ContractEventType[];
}

export interface WebhookSecret {
  webhook_secret: string;
}

/** One copy of a contract event, addressed to one agent. */
/** `data` of a contract event: `passed` and `results` come with `contract.verification.completed`. */
export type AgentEventData = OpenApiTypes.Event['data'];

export interface AgentEvent<TData extends Record<string, unknown> = AgentEventData> {
  id: string;
  type: ContractEventType;
  created_at: string;
  agent_id: string;
  data: TData;
}

export interface ListEventsParams {
  /** A cursor (`next_cursor`) or an event id: events after it. */
  after?: string;
  limit?: number;
}

export interface StreamEventsOptions {
  /** Resume after this event id (sent as `Last-Event-ID`). */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Reconnect when the stream drops, resuming after the last event seen. Default true. */
  reconnect?: boolean;
}

/** One server-sent event of `events.stream()`: the SSE `id`, `event` and parsed `data`. */
export interface StreamedEvent {
  id: string;
  event: string;
  data: AgentEvent;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface Delivery {
  id: string;
  event_id: string;
  event_type: ContractEventType;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

export interface ListDeliveriesParams {
  cursor?: string;
  limit?: number;
}

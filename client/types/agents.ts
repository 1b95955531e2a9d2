import type * as OpenApiTypes from './openapi.ts';

/** Agents, webhook configuration, events and deliveries (docs/api.md "Agents, webhooks and events"). */

export type WebhookStatus = OpenApiTypes.Agent['webhook_status'];

/** The event kinds an agent may subscribe its webhook to. */
export type ContractEventType = OpenApiTypes.EventType;

export type Agent = OpenApiTypes.Agent;

/** The event catalog: every kind with its description, whether it is configurable, and its JSON Schema. */
export type EventTypeList = OpenApiTypes.EventTypeList;

/** The first webhook configuration of an agent also returns its signing secret. */
export type ConfiguredAgent = OpenApiTypes.ConfiguredAgent;

/** `limit`: 1–100, default 100. */
export type ListAgentsParams = OpenApiTypes.ListAgentsQuery;

export type CreateAgentInput = OpenApiTypes.CreateAgentBody;

export type ConfigureWebhookInput = OpenApiTypes.ConfigureWebhookBody;

export type WebhookSecret = OpenApiTypes.WebhookSecret;

/** How long the previous secret keeps signing beside the new one: 0–86400 seconds, default 86400. */
export type RotateSecretInput = OpenApiTypes.RotateWebhookSecretBody;

/** A link to one agent's portal page: open `url`, or embed it in an iframe. `token` lasts until `expires_at`. */
export type PortalLink = OpenApiTypes.PortalLink;

/** How long the link's token works: 60–3600 seconds, default 3600. */
export type CreatePortalLinkInput = OpenApiTypes.CreatePortalLinkBody;

/** `data` of a contract event: `passed` and `results` come with `contract.verification.completed`. */
export type AgentEventData = OpenApiTypes.ContractEvent['data'];

/** One copy of a contract event, addressed to one agent. */
export type ContractEvent = OpenApiTypes.ContractEvent;

/** One copy of a template event (a version deprecated or yanked), to the agents the workspace chose. */
export type TemplateEvent = OpenApiTypes.TemplateEvent;

/** One copy of a contract or template event, addressed to one agent. */
export type AgentEvent = OpenApiTypes.Event;

/** The test event (POST …/webhook/test), delivered like a contract event. */
export type TestEvent = OpenApiTypes.TestEvent;

/** In the feed and the stream when the service disabled a failing webhook. */
export type WebhookDisabledEvent = OpenApiTypes.WebhookDisabledEvent;

/** An item of the feed and the stream: a contract event or a `service.*` event. */
export type FeedEvent = OpenApiTypes.FeedEvent;

export type FeedEventType = OpenApiTypes.FeedEventType;

/** `after`: a cursor (`next_cursor`) or an event id: events after it. */
export type ListEventsParams = OpenApiTypes.ListAgentEventsQuery;

export interface StreamEventsOptions {
  /** Resume after this event id (sent as `Last-Event-ID`; wins over `since`). */
  lastEventId?: string;
  /**
   * Where to start without `lastEventId`: `now` (only new events), an ISO 8601 time (events
   * created from then on) or an event id (after it). Default: the whole retained feed.
   */
  since?: string;
  signal?: AbortSignal;
  /** Reconnect when the stream drops, resuming after the last event seen. Default true. */
  reconnect?: boolean;
}

export interface SubscribeOptions {
  /** Resume after this event id (or a `next_cursor`): what the client saw last. Default: the whole retained feed. */
  after?: string;
  signal?: AbortSignal;
}

/** One server-sent event of `events.stream()`: the SSE `id`, `event` and parsed `data`. */
export interface StreamedEvent {
  id: string;
  event: string;
  data: FeedEvent;
}

/** `since` and `until` (default now): ISO 8601 times, at most 30 days apart; `types` default to every kind the webhook (or `destination_id`'s destination) subscribes to. */
export type ReplayEventsInput = OpenApiTypes.ReplayEventsBody;

export type ReplayAccepted = OpenApiTypes.ReplayAccepted;

export type DeliveryStatus = OpenApiTypes.Delivery['status'];

export type Delivery = OpenApiTypes.Delivery;

/** One delivery with its attempt history (`deliveries.get`). */
export type DeliveryDetail = OpenApiTypes.DeliveryDetail;

export type DeliveryAttempt = OpenApiTypes.DeliveryAttempt;

export type ListDeliveriesParams = OpenApiTypes.ListDeliveriesQuery;

/** `force`: send a delivery that already succeeded again (otherwise 409 `invalid_transition`). */
export type RetryDeliveryInput = OpenApiTypes.RetryDeliveryBody;

export type TestEventAccepted = OpenApiTypes.TestEventAccepted;

/** A subscription's content filter (docs/webhooks.md, "Filters"): `and`/`or`/`not` of comparisons on the event's fields. */
export type Filter = OpenApiTypes.Filter;

/** POST …/filters/test: a filter (or the subscription's own) and the event to test it on (given, by id, or the newest). */
export type FilterTestInput = OpenApiTypes.TestFilterBody;

/** Whether the filter passed, the clause that decided a non-match, and whether it can ever match. */
export type FilterTest = OpenApiTypes.FilterTest;

/** An SQS queue or EventBridge bus of the agent's owner (docs/webhooks.md, "AWS destinations"). */
export type Destination = OpenApiTypes.Destination;
/** The answer to adding a destination: with its `signing_secret`, shown only there. */
export type CreatedDestination = OpenApiTypes.CreatedDestination;

/** `arn`: `arn:aws:sqs:<region>:<account>:<queue>` or `arn:aws:events:<region>:<account>:event-bus/<bus>`; `events`: the kinds it receives. */
export type CreateDestinationInput = OpenApiTypes.CreateDestinationBody;

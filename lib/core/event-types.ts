/**
 * Every kind of event the service sends, with the words the catalog (`GET /api/v1/event-types`)
 * shows. In the core: lib/agents (which kinds a webhook may subscribe to) and lib/events (what an
 * event is) both import it, so neither depends on the other for it.
 *
 * Contract kinds and template kinds are configurable: a webhook subscribes to them with PATCH …/webhook `events`.
 * Service kinds are not: they go to an agent whatever it subscribes to (the test event to the
 * webhook, the disable notice to the feed).
 */
export const EVENT_TYPES = [
  'contract.funded',
  'contract.released',
  'contract.refunded',
  'contract.verification.completed',
  'template.version.deprecated',
  'template.version.yanked',
  'template.version.published',
] as const;

export const SERVICE_EVENT_TYPES = [
  'service.webhook.test',
  'service.webhook.disabled',
  'agent.webhook.disabled',
  'agent.webhook.failing',
  'agent.webhook.unverified',
  'agent.filter.changed',
] as const;

/**
 * Operational events (docs/webhooks.md, "Operational events"): one agent's webhook changed health,
 * told to every agent of the account (each in its feed; delivered to the ENABLED webhooks among
 * them, whatever they subscribe to), so an owner hears of a dead endpoint on one that works.
 */
export const OPERATIONAL_EVENT_TYPES = [
  'agent.webhook.disabled',
  'agent.webhook.failing',
  'agent.webhook.unverified',
  'agent.filter.changed',
] as const;
export type OperationalEventType = (typeof OPERATIONAL_EVENT_TYPES)[number];

/** A contract or template kind: what a webhook subscribes to. */
export type EventType = (typeof EVENT_TYPES)[number];
export type ServiceEventType = (typeof SERVICE_EVENT_TYPES)[number];
export type AnyEventType = EventType | ServiceEventType;
/** Every kind of the catalog (a function: a constant spread here would be kept in every bundle that imports this module). */
export const allEventTypes = (): AnyEventType[] => [...EVENT_TYPES, ...SERVICE_EVENT_TYPES];

export const EVENT_DESCRIPTIONS: Readonly<Record<AnyEventType, string>> = {
  'contract.funded': 'A contract the agent is a party to moved from CREATED to FUNDED.',
  'contract.released': 'A VERIFIED contract was released to the seller.',
  'contract.refunded': 'A contract was refunded to the buyer.',
  'contract.verification.completed':
    'The checks of a FUNDED contract were run; `data.passed` says whether they all passed.',
  'template.version.deprecated':
    "A version of a template the agent's workspace installed was deprecated; `data.message` says why. Sent to the agents the workspace chose (PUT /v1/marketplace/installed/agents).",
  'template.version.yanked':
    "A version of a template the agent's workspace installed was yanked: no new installs or contracts of it; `data.current_version` is the version now current (null when none is). Sent to the agents the workspace chose.",
  'template.version.published':
    "A template the agent's workspace installed has a new version: `data.summary` is the computed diff from the version before it (`data.breaking` when a contract of the old one could be refused by the new), and `data.upgraded` says whether the workspace's install moved by its update policy (`null` when it stayed: pinned, outside its range, or breaking). Sent to the agents the workspace chose.",
  'service.webhook.test':
    'Sent on demand by POST /api/v1/agents/{id}/webhook/test to check a receiver; `data` is empty.',
  'service.webhook.disabled':
    'The webhook was disabled by the service (its deliveries kept failing, or it answered 410); `data.reason` says why. Goes to the feed and the stream.',
  'agent.webhook.disabled':
    "An agent's webhook of this account was disabled; `data.agent_id` names it and `data.reason` says why (`endpoint_gone`: a 410 answer, `consecutive_failures`: 5 days of failures, `manual`: DELETE …/webhook). Every agent of the account gets it in its feed; ENABLED webhooks get it delivered, whatever they subscribe to.",
  'agent.webhook.failing':
    "An agent's webhook of this account keeps failing: its circuit opened after repeated failed attempts (`data.agent_id`, `data.failures`). Sent once per failing streak, to every agent of the account like `agent.webhook.disabled`.",
  'agent.webhook.unverified':
    "An agent's webhook of this account failed its periodic re-verification (every 72 h) several times in a row and is back to PENDING_VERIFICATION (`data.agent_id`, `data.last_verified_at`); verify it again to resume deliveries. Sent to every agent of the account like `agent.webhook.disabled`.",
  'agent.filter.changed':
    "The content filter of one of the agent's subscriptions was set, changed or removed (`data.subscription`: `webhook` or `destination` with `data.destination_id`; `data.filter`, null when removed; `data.never_matches`). It applies to events made after this one. Only in that agent's feed, and delivered to its webhook when ENABLED, like the operational events.",
};

export const isConfigurable = (type: string): type is EventType => (EVENT_TYPES as readonly string[]).includes(type);

/**
 * The version of each kind's schema (lib/events/feed/event-data.ts), carried by every event as
 * `schema_version` and shown in the catalog. A change a strict receiver could refuse (a new enum
 * value, a field made optional or removed) raises it.
 */
export const EVENT_SCHEMA_VERSIONS: Readonly<Record<AnyEventType, number>> = {
  'contract.funded': 1,
  'contract.released': 1,
  'contract.refunded': 1,
  'contract.verification.completed': 1,
  'template.version.deprecated': 1,
  'template.version.yanked': 1,
  'template.version.published': 1,
  'service.webhook.test': 1,
  // 2: `reason` gained `endpoint_gone` (a 410 answer); `failing_since` comes only with `consecutive_failures`.
  'service.webhook.disabled': 2,
  'agent.webhook.disabled': 1,
  'agent.webhook.failing': 1,
  'agent.webhook.unverified': 1,
  'agent.filter.changed': 1,
};

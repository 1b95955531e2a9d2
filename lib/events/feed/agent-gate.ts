/**
 * What events and deliveries need from the agent item (owned by lib/agents): ownership, and
 * whether a kind may be delivered right now. Reads are strongly consistent, so the relay and the
 * delivery worker see a webhook disabled a moment ago.
 */

import type { AgentRecord } from '../../agents/model.ts';
import { getAgent } from '../../agents/store.ts';
import { OPERATIONAL_EVENT_TYPES } from '../../core/event-types.ts';

export const readAgent = getAgent;

/** The test event goes to an ENABLED webhook whatever kinds it subscribes to (POST …/webhook/test). */
export const TEST_EVENT_TYPE = 'service.webhook.test';

/** Kinds an ENABLED webhook gets whatever it subscribes to: the test event and the operational events. */
const UNSUBSCRIBED_KINDS: readonly string[] = [TEST_EVENT_TYPE, ...OPERATIONAL_EVENT_TYPES];

/** docs/api.md "Webhook requests": delivery only while ENABLED, and only for subscribed kinds (and the test and operational events). */
export function acceptsDelivery(
  agent: AgentRecord | undefined,
  type: string,
): agent is AgentRecord & { webhook_url: string } {
  return (
    agent?.webhook_status === 'ENABLED' &&
    typeof agent.webhook_url === 'string' &&
    (UNSUBSCRIBED_KINDS.includes(type) || (agent.events as string[]).includes(type))
  );
}

/** Whether a subscription's filter (lib/filters) judges this kind: not the test event nor the operational events, which the service sends whatever the subscription. */
export const filterApplies = (type: string): boolean => !UNSUBSCRIBED_KINDS.includes(type);

/** Whether the agent has AWS destinations (lib/destinations keeps the count on the agent item): the relay then looks at each. */
export const hasDestinations = (agent: AgentRecord | undefined): boolean =>
  ((agent as { destination_count?: number } | undefined)?.destination_count ?? 0) > 0;

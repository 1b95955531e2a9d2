/**
 * POST …/webhook/test: a `service.webhook.test` event through the outbox like every event (so it
 * is in the feed, the stream and the delivery list), committed only while the webhook is
 * ENABLED; the relay sends it whatever kinds the webhook subscribes to.
 */

import { ownAgent } from '../agents/agents.ts';
import type { Caller } from '../core/caller.ts';
import { tableName } from '../store/client.ts';
import * as keys from '../store/key-builders.ts';
import type { CommitAlong } from '../store/transact.ts';
import { hasDestinations, TEST_EVENT_TYPE } from './feed/agent-gate.ts';
import { commitWithEvents } from './feed/outbox.ts';
import { notEnabled } from './service.ts';

export async function sendTestEvent(
  caller: Caller,
  agentId: string,
  along?: CommitAlong<{ event_id: string }>,
): Promise<{ event_id: string }> {
  const agent = await ownAgent(caller, agentId);
  // An agent with AWS destinations gets it on each ENABLED one (destination-relay.ts), webhook or not.
  if (agent.webhook_status !== 'ENABLED' && !hasDestinations(agent)) throw notEnabled('sending a test event');
  const result = await commitWithEvents(
    () => ({
      ConditionCheck: {
        TableName: tableName(),
        Key: keys.agent(agentId),
        ConditionExpression: '(webhook_status = :enabled OR destination_count > :none) AND owner_id = :owner',
        ExpressionAttributeValues: { ':enabled': 'ENABLED', ':none': 0, ':owner': caller.userId },
      },
    }),
    { agentIds: [agentId], type: TEST_EVENT_TYPE, data: {} },
    along && ((_now, events) => along({ event_id: events[0]!.id })),
  );
  if (!result.committed) throw notEnabled('sending a test event');
  return { event_id: result.events[0]!.id };
}

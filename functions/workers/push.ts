/**
 * The relay's hand-off → the push channel: each agent with new feed slots has its WebSocket
 * connections sent what they have not been sent (lib/events/push/push-batch.ts). Invoked
 * asynchronously by the relay (lib/events/push-hand-off.ts); a run that fails is run again by Lambda
 * and then kept in the push failure queue, with its alarm (infra/push-stack.ts).
 */
import { postFrame } from '../../lib/events/push/channel.ts';
import { pushHandOff } from '../../lib/events/push/push-batch.ts';
import type { PushHandOff } from '../../lib/events/push/slots.ts';
import { observed } from '../../lib/observability/lambda.ts';

export const handler = observed(async (handOff: PushHandOff): Promise<void> => {
  const failed = await pushHandOff(handOff, postFrame);
  if (failed.length > 0) throw new Error(`push: ${failed.length} of ${handOff.agents.length} agent(s) failed`);
});

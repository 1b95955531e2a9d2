/**
 * The push worker's invocation (the relay's hand-off, lib/events/push-hand-off.ts): every agent with new feed slots
 * has its connections sent what they have not been sent yet. One push per agent, whatever its number
 * of slots: the push sends the feed from each connection's cursor; the slots' images only spare it
 * the read of the feed when they continue the cursor (send.ts). The agents' connections and
 * counters are read for the whole hand-off at once (store.ts, readPushTargets). The agents whose
 * push failed are answered; the worker then fails its invocation, which Lambda runs again (the
 * agents that were served find nothing after their cursors) and at last keeps in the push failure
 * queue. Nothing is lost meanwhile: the feed holds every event and a client's sync (at connect and
 * every PUSH.keepAliveSeconds) sends the rest.
 */
import { PUSH } from '../../core/settings.ts';
import { errorFields, log } from '../../observability/log.ts';
import { itemOfImage } from '../../store/table-change.ts';
import type { PostFrame } from './channel.ts';
import { pushToAgent } from './send.ts';
import type { PushHandOff } from './slots.ts';
import { type PushTarget, readPushTargets } from './store.ts';

/** The agents whose push failed. */
export async function pushHandOff(handOff: PushHandOff, post: PostFrame): Promise<string[]> {
  const agents = handOff.agents.map((a) => a.agent_id);
  const filledOf = new Map(
    handOff.agents.map((a) => [
      a.agent_id,
      (a.images ?? []).flatMap((image): Record<string, unknown>[] => {
        const item = itemOfImage(image);
        return item ? [item] : [];
      }),
    ]),
  );
  const failed = new Set<string>();
  let targets: Map<string, PushTarget>;
  try {
    targets = await readPushTargets(agents);
  } catch (err) {
    log.warn('push: reading the connections failed', errorFields(err));
    return agents;
  }
  // PUSH.agentsAtOnce at a time: a hand-off naming 100 agents would otherwise put a thousand posts and
  // their store calls in flight at once, behind 50 sockets to each endpoint.
  let next = 0;
  const serveNext = async (): Promise<void> => {
    for (let i = next++; i < agents.length; i = next++) {
      await pushToAgent(agents[i]!, post, Date.now(), targets.get(agents[i]!), filledOf.get(agents[i]!)).catch(
        (err: unknown) => {
          log.warn('push to an agent failed', { agentId: agents[i], ...errorFields(err) });
          failed.add(agents[i]!);
        },
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(PUSH.agentsAtOnce, agents.length) }, serveNext));
  return agents.filter((agentId) => failed.has(agentId));
}

/**
 * Table stream → push: every new slot of a feed (an event, or a gap marker that lets a reader pass
 * an abandoned slot) has the agent's connections sent what they have not been sent yet. The event
 * source filters to those records (PUSH_FILTER_PATTERN; the local stream poller applies the same).
 * One push per agent per batch, whatever its number of events: the push sends the feed from each
 * connection's cursor; the records only spare it the read of the feed when they continue the cursor
 * (send.ts). The agents' connections and counters are read for the whole batch at once (store.ts,
 * readPushTargets). A failed agent is reported at its earliest record, so the
 * stream hands the batch over again from there; nothing is lost meanwhile, since the feed holds every
 * event and a client's sync (at connect and every PUSH.keepAliveSeconds) sends the rest.
 */
import { PUSH } from '../../core/settings.ts';
import { errorFields, log } from '../../observability/log.ts';
import { ENTITY } from '../../store/keys.ts';
import { itemOfImage, sequenceOf, type TableChange } from '../../store/table-change.ts';
import type { PostFrame } from './channel.ts';
import { pushToAgent } from './send.ts';
import { type PushTarget, readPushTargets } from './store.ts';

export const PUSH_FILTER_PATTERN = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { entity: { S: [ENTITY.event, ENTITY.feedGap] } } },
} as const;

/** The sequence numbers to report as failed (one per failed agent: its earliest record). */
export async function pushBatch(changes: readonly TableChange[], post: PostFrame): Promise<string[]> {
  const firstRecordOf = new Map<string, TableChange>();
  const filledOf = new Map<string, Record<string, unknown>[]>();
  for (const change of changes) {
    const item = itemOfImage(change.dynamodb?.NewImage);
    const agentId = item?.['agent_id'];
    if (typeof agentId !== 'string') continue;
    if (!firstRecordOf.has(agentId)) firstRecordOf.set(agentId, change);
    filledOf.set(agentId, filledOf.get(agentId) ?? []);
    filledOf.get(agentId)!.push(item!);
  }
  const agents = [...firstRecordOf.keys()];
  const failed = new Set<string>();
  let targets: Map<string, PushTarget>;
  try {
    targets = await readPushTargets(agents);
  } catch (err) {
    log.warn('push: reading the connections failed', errorFields(err));
    return agents.map((agentId) => sequenceOf(firstRecordOf.get(agentId)!));
  }
  // PUSH.agentsAtOnce at a time: a batch naming 100 agents would otherwise put a thousand posts and
  // their store calls in flight at once, behind 50 sockets to each endpoint.
  let next = 0;
  const serveNext = async (): Promise<void> => {
    for (let i = next++; i < agents.length; i = next++) {
      await pushToAgent(agents[i]!, post, Date.now(), targets.get(agents[i]!), filledOf.get(agents[i]!)).catch(
        (err: unknown) => {
          // Reported as a batch item failure: the stream hands the agent's records over again.
          log.warn('push to an agent failed', { agentId: agents[i], ...errorFields(err) });
          failed.add(agents[i]!);
        },
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(PUSH.agentsAtOnce, agents.length) }, serveNext));
  return agents.filter((agentId) => failed.has(agentId)).map((agentId) => sequenceOf(firstRecordOf.get(agentId)!));
}

/**
 * Replay (docs/webhooks.md, "Replay"): POST …/events/replay sends every event of the agent created
 * in [since, until) of the kinds asked (default: every kind the webhook subscribes to) to the
 * current ENABLED webhook again, as new delivery records with the same event ids, including events
 * from before the webhook was enabled.
 *
 * The request maps the window to feed cursors (start-point.ts), counts the events in it (that
 * count is `replayed`) and writes the job's first page item. The page's INSERT reaches the relay
 * through the table stream (its `deliver` flag passes the relay's filter); the relay turns up to
 * 100 slots' events into deliveries through the same function as outbox rows, then writes the next
 * page item with its cursor. So the job is bounded per invocation and resumable: a page that fails
 * is retried by the stream, its deliveries are conditional creates with ids derived from the job
 * and the event, and the next page is a conditional put.
 */

import { createHash, randomUUID } from 'node:crypto';
import { ownAgent } from '../../agents/agents.ts';
import type { Caller } from '../../core/caller.ts';
import { setting } from '../../core/environment.ts';
import { AppError, notFound, validationError } from '../../core/errors.ts';
import { idAt } from '../../core/ids.ts';
import { readDestination } from '../../destinations/store.ts';
import { takeReplaySlot } from '../../limits/replay-limit.ts';
import type { CommitAlong } from '../../store/transact.ts';
import { acceptsDelivery, readAgent } from '../feed/agent-gate.ts';
import type { ServiceEvent } from '../feed/event.ts';
import { eventFromItem } from '../feed/outbox.ts';
import { positionOf } from '../feed/position.ts';
import { startCursor } from '../feed/start-point.ts';
import type { ReplayInput } from './request-schema.ts';
import { commitEmptyReplayAnswer, countEvents, eventsIn, putPage, type ReplayPage } from './store.ts';

/** Slots one page reads (REPLAY_PAGE_ITEMS only makes tests cross pages with a few events). */
const pageItems = (): number => setting('REPLAY_PAGE_ITEMS');
const WINDOW_DAYS = 30;

export async function startReplay(
  caller: Caller,
  agentId: string,
  input: ReplayInput,
  now = new Date(),
  along?: CommitAlong<{ replayed: number }>,
): Promise<{ replayed: number }> {
  const agent = await ownAgent(caller, agentId);
  const destination = input.destination_id ? await readDestination(agentId, input.destination_id) : undefined;
  if (input.destination_id !== undefined) {
    if (!destination) throw notFound('Destination');
    if (destination.status !== 'ENABLED')
      throw new AppError(
        'webhook_not_configured',
        'The destination is not ENABLED: verify it before replaying events.',
      );
  } else if (agent.webhook_status !== 'ENABLED' || !agent.webhook_url) {
    throw new AppError(
      'webhook_not_configured',
      'The agent has no enabled webhook: configure and verify it before replaying events.',
    );
  }
  const since = new Date(input.since);
  const until = input.until === undefined ? now : new Date(input.until);
  if (until.getTime() <= since.getTime()) throw validationError([{ path: 'until', message: 'Must be after since.' }]);
  if (until.getTime() - since.getTime() > WINDOW_DAYS * 86_400_000)
    throw validationError([{ path: 'until', message: `The window may span at most ${WINDOW_DAYS} days.` }]);
  const subscribed = (destination ?? agent).events as string[];
  const notSubscribed = (input.types ?? []).filter((t) => !subscribed.includes(t));
  if (notSubscribed.length)
    throw validationError([
      {
        path: 'types',
        message: `The ${destination ? 'destination' : 'webhook'} does not subscribe to ${notSubscribed.join(', ')}.`,
      },
    ]);
  const types = input.types ?? subscribed;

  // Taken once the request is known to be valid, before the window is read.
  await takeReplaySlot(agent.id);
  const after = await startCursor(agent, { kind: 'time', at: since });
  const end = await startCursor(agent, { kind: 'time', at: until });
  const replayed = end === undefined ? 0 : await countEvents(agent.id, after, end, types); // undefined: every retained event is from `until` on
  if (end === undefined || replayed === 0) {
    await commitEmptyReplayAnswer(along?.({ replayed }));
    return { replayed };
  }
  await putPage(
    {
      agent_id: agent.id,
      job_id: randomUUID(),
      page: 0,
      ...(after ? { after } : {}),
      end,
      types,
      replayed,
      requested_at: now.toISOString(),
      ...(destination ? { destination_id: destination.id } : {}),
    },
    along?.({ replayed }),
  );
  return { replayed };
}

/** One page of a job, run by the relay: returns the number of deliveries sent. */
export async function replayPage(
  page: ReplayPage,
  send: (event: ServiceEvent, deliveryId: string, destinationId?: string) => Promise<boolean>,
): Promise<number> {
  const agent = await readAgent(page.agent_id);
  const destination = page.destination_id ? await readDestination(page.agent_id, page.destination_id) : undefined;
  // Disabled, re-configured or deleted since: the job ends here (what was sent stays sent).
  if (page.destination_id ? !agent || destination?.status !== 'ENABLED' : agent?.webhook_status !== 'ENABLED') return 0;
  const accepts = (type: string) =>
    destination ? (destination.events as string[]).includes(type) : acceptsDelivery(agent, type);
  const { items, last } = await eventsIn(page.agent_id, page.after, page.end, page.types, pageItems());
  let sent = 0;
  for (const item of items) {
    const event = eventFromItem(item);
    if (accepts(event.type) && (await send(event, replayDeliveryId(page.job_id, event.id), destination?.id))) sent++;
  }
  if (last !== undefined) await putPage({ ...page, page: page.page + 1, after: last });
  return sent;
}

/** At the event's own position, so the delivery list shows it beside the event's first delivery. */
export const replayDeliveryId = (jobId: string, eventId: string): string =>
  idAt('dlv', positionOf(eventId), createHash('sha256').update(`${jobId}:${eventId}`).digest());

/** The unmarshalled image of a page item as the relay receives it. */
export function pageFromImage(image: Record<string, unknown>): ReplayPage {
  const { agent_id, job_id, page, after, end, types, replayed, requested_at, destination_id } =
    image as unknown as ReplayPage;
  return {
    agent_id,
    job_id,
    page,
    ...(after ? { after } : {}),
    end,
    types,
    replayed,
    requested_at,
    ...(destination_id ? { destination_id } : {}),
  };
}

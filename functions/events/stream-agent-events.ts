import { ownedAgent } from '../../lib/events/agents.ts';
import { agentParams, isEventId, streamQuery } from '../../lib/events/schemas.ts';
import { streamEvents } from '../../lib/events/sse.ts';
import { sseRoute } from '../../lib/http/sse-route.ts';
import { validationError } from '../../lib/http/errors.ts';

/**
 * GET /api/v1/agents/:id/events/stream: server-sent events with Lambda response streaming.
 * Resumes after Last-Event-ID (what EventSource sends on reconnect), else after ?after.
 */
export const handler = sseRoute({ params: agentParams, query: streamQuery }, async ({ caller, params, query, headers, context }) => {
  await ownedAgent(caller, params.id);
  const lastEventId = headers['last-event-id']?.trim() || undefined;
  if (lastEventId !== undefined && !isEventId(lastEventId)) {
    throw validationError([{ path: 'Last-Event-ID', message: 'Expected an event id (evt_…).' }], 'The Last-Event-ID header is not valid.');
  }
  const after = lastEventId ?? query.after;
  return (out) => streamEvents(params.id, after, out, { remainingMs: () => context.getRemainingTimeInMillis() });
});

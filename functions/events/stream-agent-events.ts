import { ownAgent } from '../../lib/agents/agents.ts';
import { agentParams, streamQuery } from '../../lib/events/schemas.ts';
import { resumeAfter, streamEvents } from '../../lib/events/sse.ts';
import { sseRoute } from '../../lib/http/sse-route.ts';

/** GET /api/v1/agents/:id/events/stream: server-sent events with Lambda response streaming. */
export const handler = sseRoute({ params: agentParams, query: streamQuery }, async ({ caller, params, query, headers, context }) => {
  await ownAgent(caller, params.id);
  const after = resumeAfter(headers['last-event-id'], query.after);
  return (out) => streamEvents(params.id, after, out, { remainingMs: () => context.getRemainingTimeInMillis() });
});

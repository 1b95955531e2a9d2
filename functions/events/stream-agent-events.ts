/**
 * GET /api/v1/agents/:id/events/stream: server-sent events with Lambda response streaming. The
 * stream runs while it holds one of the agent's stream leases (429 when all are taken) and ends
 * if it loses it, or once its access is gone (the key or portal link revoked, the agent deleted).
 */
import { ownAgent } from '../../lib/agents/agents.ts';
import { feedAccessStands } from '../../lib/events/feed/access-check.ts';
import { streamEvents, streamStart } from '../../lib/events/feed/sse.ts';
import { startCursor } from '../../lib/events/feed/start-point.ts';
import { streamQuery } from '../../lib/events/feed/stream-query.ts';
import { agentParams } from '../../lib/events/schemas.ts';
import { sseRoute } from '../../lib/http/sse-route.ts';
import { acquireStreamLease } from '../../lib/limits/stream-leases.ts';

export const handler = sseRoute(
  { params: agentParams, query: streamQuery },
  async ({ caller, params, query, headers, context }) => {
    const agent = await ownAgent(caller, params.id);
    const start = streamStart(headers['last-event-id'], query);
    const after = start ? await startCursor(agent, start) : undefined;
    const lease = await acquireStreamLease(params.id);
    return async (out) => {
      try {
        await streamEvents(params.id, after, lease.guard(out), {
          remainingMs: () => context.getRemainingTimeInMillis(),
          announceStart: start?.kind === 'now' || start?.kind === 'time',
          accessStands: () => feedAccessStands(caller, params.id),
        });
      } finally {
        await lease.release();
      }
    };
  },
);

import { eventsQuery } from '../../lib/events/feed/list-query.ts';
import { agentParams } from '../../lib/events/schemas.ts';
import { agentEvents } from '../../lib/events/service.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

/** GET /api/v1/agents/:id/events: the polling feed, oldest first. */
export const handler = httpRoute({ params: agentParams, query: eventsQuery }, async ({ caller, params, query }) =>
  ok(await agentEvents(caller, params.id, query.after, query.limit)),
);

import { startReplay } from '../../lib/events/replay/replay-job.ts';
import { replayBody } from '../../lib/events/replay/request-schema.ts';
import { agentParams } from '../../lib/events/schemas.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { accepted } from '../../lib/http/responses.ts';

/** POST /api/v1/agents/:id/events/replay: 202 {replayed}; the relay sends them page by page. */
export const handler = httpRoute(
  { params: agentParams, body: replayBody },
  async ({ caller, params, body, sealAnswer }) =>
    accepted(await startReplay(caller, params.id, body, new Date(), sealAnswer(accepted))),
);

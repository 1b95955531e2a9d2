import { testFilter } from '../../lib/events/filter-test.ts';
import { filterTestBody } from '../../lib/events/filter-test-body.ts';
import { agentParams } from '../../lib/events/schemas.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

/** POST /api/v1/agents/:id/filters/test: whether a filter passes an event, and the clause that failed. */
export const handler = httpRoute(
  { params: agentParams, body: filterTestBody },
  async ({ caller, params, body, sealAnswer }) => ok(await testFilter(caller, params.id, body, sealAnswer(ok))),
);
